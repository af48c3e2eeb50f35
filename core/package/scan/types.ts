/**
 * What a scan of package text reports.
 *
 * Isomorphic: no `node:` imports.
 */

/** One match inside a string: where it is (UTF-16 indices) and what it is. */
export interface TextHit {
  code:
    | 'control_character'
    | 'bidi_control'
    | 'lone_surrogate'
    | 'credential_detected'
    | 'binary_payload'
    | 'executable_content'
    | 'authority_bypass'
    | 'reserved_tag';
  index: number;
  length: number;
  /** Message arguments for the code's rule (never secret text). */
  args: string[];
}

/** What to look for in one string. */
export interface ScanScope {
  /** Text the runtime projects into prompts: also checked for authority bypass and reserved tags. */
  projected: boolean;
}

/** Result of a scan of one string. */
export interface TextScan {
  hits: TextHit[];
  /** UTF-8 byte length of the text (lone surrogates count as U+FFFD, 3 bytes). */
  bytes: number;
}
