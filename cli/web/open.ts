/**
 * Opening a URL in the user's browser: `$BROWSER` when set (the usual
 * convention; `%s` is replaced by the URL), else the platform's opener
 * (`open`, `xdg-open`, `start`). Never waits for the browser to exit.
 */
import { spawn } from 'node:child_process';

/** Starts the browser on `url`; resolves false (with why) when no opener could be started. */
export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): Promise<{ ok: boolean; why?: string }> {
  let command: string;
  let args: string[];
  const browser = env['BROWSER']?.trim();
  if (browser) {
    const parts = browser.split(/\s+/);
    command = parts[0]!;
    args = parts.slice(1).some((p) => p.includes('%s')) ? parts.slice(1).map((p) => p.replace('%s', url)) : [...parts.slice(1), url];
  } else if (platform === 'darwin') {
    command = 'open';
    args = [url];
  } else if (platform === 'win32') {
    command = 'cmd';
    args = ['/c', 'start', '""', url.replace(/&/g, '^&')];
  } else {
    command = 'xdg-open';
    args = [url];
  }
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, args, { detached: true, stdio: 'ignore', env });
    } catch (error) {
      resolve({ ok: false, why: `${command}: ${(error as Error).message}` });
      return;
    }
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ ok: false, why: error.code === 'ENOENT' ? `${command} is not installed` : `${command}: ${error.message}` }));
    child.once('spawn', () => {
      child.unref();
      resolve({ ok: true });
    });
  });
}
