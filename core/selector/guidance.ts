/**
 * Bounds of deployment-supplied guidance text: selector guidance (guide 9.5)
 * and the authoring advisor's additional guidance (guide 5.3) share them.
 * Guidance is additive: it may not be larger than 4,096 UTF-8 bytes or 512
 * estimated tokens, and it may not supply a framework-reserved prompt section
 * (`<skill_precedence>`, `<active_skills>`, `<active_skill_tool_hints>`).
 * Guidance that breaks a bound is refused with a finding, never cut or
 * escaped and sent anyway.
 *
 * Isomorphic: no `node:` imports.
 */
import { RESERVED_TAGS } from '../package/rules';
import { scanText } from '../package/scan';
import { estimateTokens, utf8Bytes } from '../package/tokens';
import type { Finding } from '../package/types';

/** The fixed bounds of one guidance value. */
export const GUIDANCE_LIMITS = Object.freeze({ maxBytes: 4_096, maxTokens: 512 });

/** Result of {@link checkGuidance}. */
export interface GuidanceCheck {
  /** True when the guidance may be used. */
  ok: boolean;
  /** The trimmed guidance ('' when none was given). */
  text: string;
  bytes: number;
  tokens: number;
  /** Why it was refused: `guidance_too_large`, `guidance_reserved_section`. */
  findings: Finding[];
}

/**
 * Checks one guidance value. `path` names where it came from in findings
 * (a file name, `--guidance`, a configuration key). Empty guidance is valid.
 */
export function checkGuidance(text: string | undefined, path = ''): GuidanceCheck {
  const trimmed = (text ?? '').trim();
  const bytes = utf8Bytes(trimmed);
  const tokens = estimateTokens(bytes);
  const findings: Finding[] = [];
  if (bytes > GUIDANCE_LIMITS.maxBytes || tokens > GUIDANCE_LIMITS.maxTokens) {
    findings.push({
      severity: 'error',
      code: 'guidance_too_large',
      path,
      message: `Guidance is ${bytes} bytes and ${tokens} estimated tokens; it may have at most ${GUIDANCE_LIMITS.maxBytes} bytes and ${GUIDANCE_LIMITS.maxTokens} estimated tokens.`,
    });
  }
  const reserved = scanText(trimmed, { projected: true }).hits.filter((h) => h.code === 'reserved_tag');
  if (reserved.length > 0) {
    findings.push({
      severity: 'error',
      code: 'guidance_reserved_section',
      path,
      message: `Guidance may not supply a framework-reserved prompt section (${RESERVED_TAGS.map((t) => `<${t}>`).join(', ')}); found ${[...new Set(reserved.map((h) => h.args[0]))].join(', ')}.`,
    });
  }
  return { ok: findings.length === 0, text: trimmed, bytes, tokens, findings };
}
