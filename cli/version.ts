/** Skillbench's version, as package.json states it. */
import { readFile } from 'node:fs/promises';

/** Skillbench's version from package.json. */
export async function packageVersion(): Promise<string> {
  const text = await readFile(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}
