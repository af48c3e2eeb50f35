/**
 * The README's CLI section is the real `skillbench --help`, and the command
 * works the way `npm link` installs it: through a symlink to package.json's
 * `bin`, from any folder.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillbench-cli-readme-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('README and install', () => {
  it("quotes `skillbench --help` exactly in the README's CLI section", async () => {
    const help = await runCli(['--help'], { cwd: work });
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`\`\`\`text\n${help.stdout}\`\`\``);
  });

  it('runs through a symlink to the bin of package.json from another folder, as npm link installs it', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string; bin: { skillbench: string } };
    const link = join(work, 'skillbench');
    await symlink(join(ROOT, pkg.bin.skillbench), link);
    const run = spawnSync(process.execPath, [link, '--version'], { cwd: work, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${pkg.version}\n`);
  });
});
