/**
 * What the desktop shell refuses, in one place: a workbench window never
 * navigates away from the app's origin, never opens another window or a
 * `<webview>`, and its session grants no permission (camera, notifications,
 * clipboard reads, USB, …) and loads nothing from the network: the page
 * reaches the engine only through the IPC contract.
 *
 * No Electron import at run time: the functions take the parts of
 * `webContents` and `session` they use, with Electron's signatures.
 */
import type { Session, WebContents } from 'electron';
import { schemeHost } from './ipc';

/** Told about every refusal (for the log; URLs only, never payloads). */
export type RefusalListener = (what: string, detail: string) => void;

/** The events and hooks of a window's `webContents` that are hardened. */
export type HardenedContents = Pick<WebContents, 'on' | 'setWindowOpenHandler'>;

/** Denies navigation off `appOrigin`, new windows and webviews in `contents`. */
export function hardenContents(contents: HardenedContents, appOrigin: string, onRefused: RefusalListener = () => undefined): void {
  contents.setWindowOpenHandler(({ url }) => {
    onRefused('window', url);
    return { action: 'deny' };
  });
  const stayHome = (event: { preventDefault(): void }, url: string, what: string) => {
    if (schemeHost(url) === appOrigin) return;
    event.preventDefault();
    onRefused(what, url);
  };
  contents.on('will-navigate', (event, url) => stayHome(event, url, 'navigation'));
  contents.on('will-redirect', (event, url) => stayHome(event, url, 'redirect'));
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    onRefused('webview', '');
  });
}

/** The schemes a workbench session may load: the app itself and what Chromium makes in memory. */
const LOCAL_SCHEMES = new Set(['app:', 'blob:', 'data:', 'devtools:', 'chrome-extension:']);

/** The parts of `session` that are hardened. */
export type HardenedSession = Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'setDevicePermissionHandler'> & {
  webRequest: Pick<Session['webRequest'], 'onBeforeRequest'>;
};

/** Denies every permission request and check, and cancels requests to anything but the app's own scheme. */
export function hardenSession(session: HardenedSession, onRefused: RefusalListener = () => undefined): void {
  session.setPermissionRequestHandler((_contents, permission, callback) => {
    onRefused('permission', permission);
    callback(false);
  });
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
  session.webRequest.onBeforeRequest((details, callback) => {
    let scheme: string;
    try {
      scheme = new URL(details.url).protocol;
    } catch {
      scheme = '';
    }
    const allowed = LOCAL_SCHEMES.has(scheme);
    if (!allowed) onRefused('request', details.url);
    callback({ cancel: !allowed });
  });
}
