/**
 * What a workbench window refuses, through stand-ins of `webContents` and
 * `session` with Electron's signatures (its binary cannot run here):
 * navigation off the app's origin, new windows, webviews, every permission,
 * and loads from the network.
 */
import { EventEmitter } from 'node:events';
import type { Session, WebContents } from 'electron';
import { describe, expect, it } from 'vitest';
import { hardenContents, hardenSession, type HardenedSession } from '../../../electron/hardening';

const APP = 'app://workbench';

/** A stand-in for a window's `webContents`: its navigation events and window-open handler. */
class ContentsStandIn extends EventEmitter {
  openHandler: Parameters<WebContents['setWindowOpenHandler']>[0] | undefined;
  setWindowOpenHandler(handler: Parameters<WebContents['setWindowOpenHandler']>[0]): void {
    this.openHandler = handler;
  }
  /** What Electron does before navigating: emits the event; true when a listener prevented it. */
  navigate(event: string, url: string): boolean {
    let prevented = false;
    this.emit(event, { preventDefault: () => (prevented = true) }, url);
    return prevented;
  }
}

/** A stand-in for `session`: records the handlers it is given. */
function sessionStandIn() {
  const handlers: {
    request?: Parameters<Session['setPermissionRequestHandler']>[0];
    check?: Parameters<Session['setPermissionCheckHandler']>[0];
    device?: Parameters<Session['setDevicePermissionHandler']>[0];
    before?: (details: { url: string }, callback: (response: { cancel?: boolean }) => void) => void;
  } = {};
  const session = {
    setPermissionRequestHandler: (h: typeof handlers.request) => void (handlers.request = h),
    setPermissionCheckHandler: (h: typeof handlers.check) => void (handlers.check = h),
    setDevicePermissionHandler: (h: typeof handlers.device) => void (handlers.device = h),
    webRequest: { onBeforeRequest: (h: typeof handlers.before) => void (handlers.before = h) },
  } as unknown as HardenedSession;
  return { session, handlers };
}

describe('window hardening (webContents stand-in)', () => {
  it('denies every new window', () => {
    const contents = new ContentsStandIn();
    const refused: string[] = [];
    hardenContents(contents as unknown as WebContents, APP, (what, url) => refused.push(`${what} ${url}`));
    for (const url of ['https://example.com/', `${APP}/index.html`, 'javascript:alert(1)']) {
      expect(contents.openHandler!({ url } as never)).toEqual({ action: 'deny' });
    }
    expect(refused).toHaveLength(3);
  });

  it.each(['will-navigate', 'will-redirect'])('on %s, stays on the app origin', (event) => {
    const contents = new ContentsStandIn();
    hardenContents(contents as unknown as WebContents, APP);
    expect(contents.navigate(event, 'https://evil.example/')).toBe(true);
    expect(contents.navigate(event, 'file:///etc/passwd')).toBe(true);
    expect(contents.navigate(event, 'app://workbench.evil/index.html')).toBe(true);
    expect(contents.navigate(event, 'http://127.0.0.1:1234/')).toBe(true);
    expect(contents.navigate(event, `${APP}/index.html`)).toBe(false);
  });

  it('refuses to attach a webview', () => {
    const contents = new ContentsStandIn();
    hardenContents(contents as unknown as WebContents, APP);
    expect(contents.navigate('will-attach-webview', '')).toBe(true);
  });
});

describe('session hardening (session stand-in)', () => {
  it('denies every permission request and check', () => {
    const { session, handlers } = sessionStandIn();
    const refused: string[] = [];
    hardenSession(session, (what, detail) => refused.push(`${what} ${detail}`));
    for (const permission of ['media', 'notifications', 'clipboard-read', 'geolocation', 'openExternal'] as const) {
      let granted: boolean | undefined;
      handlers.request!({} as never, permission, (g) => (granted = g), {} as never);
      expect(granted, permission).toBe(false);
      expect(handlers.check!(null, permission, 'app://workbench', {} as never)).toBe(false);
    }
    expect(handlers.device!({} as never)).toBe(false);
    expect(refused).toContain('permission media');
  });

  it('cancels loads from the network and lets the app scheme through', () => {
    const { session, handlers } = sessionStandIn();
    hardenSession(session);
    const cancel = (url: string) => {
      let answer: boolean | undefined;
      handlers.before!({ url }, (r) => (answer = r.cancel));
      return answer;
    };
    expect(cancel('https://cdn.example/x.js')).toBe(true);
    expect(cancel('http://127.0.0.1:8080/api/app.info')).toBe(true);
    expect(cancel('ws://127.0.0.1:8080/api/ws')).toBe(true);
    expect(cancel('file:///etc/passwd')).toBe(true);
    expect(cancel(`${APP}/assets/index.js`)).toBe(false);
    expect(cancel('blob:app://workbench/1234')).toBe(false);
    expect(cancel('data:image/png;base64,AA==')).toBe(false);
  });
});
