/**
 * Where API keys come from. The CLI reads the environment; the desktop shell
 * can supply a {@link KeySource} backed by the OS keychain. A key is read per
 * call (so a rotated key takes effect at once) and is never stored, logged or
 * put into an error, trace or report.
 */
import type { HostedProviderId } from './spec';

/** Supplies the API key of a provider, or `undefined` when none is configured. */
export interface KeySource {
  getKey(provider: HostedProviderId): Promise<string | undefined> | string | undefined;
}

/** The environment variable holding each provider's key. */
export const KEY_ENV_VARS: Readonly<Record<HostedProviderId, string>> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  groq: 'GROQ_API_KEY',
  'openai-compatible': 'OPENAI_COMPATIBLE_API_KEY',
};

/** Keys from environment variables ({@link KEY_ENV_VARS}); blank values count as absent. */
export function envKeySource(env: Readonly<Record<string, string | undefined>> = process.env): KeySource {
  return {
    getKey(provider) {
      const value = env[KEY_ENV_VARS[provider]]?.trim();
      return value ? value : undefined;
    },
  };
}
