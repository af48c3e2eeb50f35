/**
 * The installer configuration as electron-builder itself loads and validates
 * it: the packaged binary has its fuses flipped (no running as plain Node, no
 * NODE_OPTIONS, no inspector flags; cookies encrypted, the app loaded only
 * from an asar archive whose integrity is checked).
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { DebugLogger } from 'builder-util';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('electron-builder configuration', () => {
  it('passes electron-builder validation and flips the fuses a hardened app needs', async () => {
    const config = await getConfig(ROOT, null, null);
    await validateConfiguration(config, new DebugLogger(false));
    expect(config.asar).toBe(true);
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });
});
