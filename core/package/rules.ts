/**
 * Every validation finding code with its severity, a one-line summary and its
 * message, plus the pattern tables the text scanner uses. A code and its
 * message live together here so codes stay stable and messages consistent.
 *
 * Isomorphic: no `node:` imports.
 */
import type { FindingSeverity } from './types';

/** One finding code: its severity, what it means, and how its message reads. */
export interface RuleSpec<A extends unknown[] = never[]> {
  severity: FindingSeverity;
  /** One line for documentation and hovers. */
  summary: string;
  message: (...args: A) => string;
}

function rule<A extends unknown[]>(severity: FindingSeverity, summary: string, message: (...args: A) => string): RuleSpec<A> {
  return { severity, summary, message };
}

const quote = (text: string): string => `'${text.length > 60 ? `${text.slice(0, 57)}...` : text}'`;

/**
 * The finding codes. Codes are stable snake_case identifiers: tools and CI
 * filters may depend on them, so a code is never renamed or reused.
 */
export const RULES = {
  // Encoding and syntax.
  invalid_utf8: rule('error', 'The bytes are not valid UTF-8.', (detail: string) => detail),
  byte_order_mark: rule('error', 'The text starts with a byte order mark.', () => 'the text starts with a byte order mark (U+FEFF); save the file as UTF-8 without BOM'),
  json_syntax: rule('error', 'The text is not valid JSON.', (detail: string) => detail),
  json_nesting_too_deep: rule('error', 'The document nests deeper than the parser accepts.', (detail: string) => detail),
  duplicate_field: rule('error', 'An object repeats a field name.', (key: string) => `duplicate field '${key}': each field may appear only once in an object`),
  invalid_json_value: rule('error', 'An in-memory value is not representable as JSON.', (what: string) => `${what} is not a JSON value`),
  invalid_limits: rule('error', 'The authoring limits passed to the validator are invalid.', (detail: string) => detail),
  internal_error: rule('error', 'The validator failed unexpectedly; the package was not fully checked.', () => 'the validator failed unexpectedly; the package could not be fully checked'),
  findings_truncated: rule('warning', 'Too many findings; the rest were left out.', (limit: number) => `more than ${limit} findings; the rest are not listed`),

  // Structure.
  document_not_object: rule('error', 'The package document is not a JSON object.', (got: string) => `the package must be a JSON object, got ${got}`),
  unknown_field: rule('error', 'A field that the V1 format does not define.', (field: string, where: string) => `unknown field '${field}' in ${where}`),
  wrong_type: rule('error', 'A field has the wrong JSON type.', (field: string, expected: string, got: string) => `${field} must be ${expected}, got ${got}`),
  missing_field: rule('error', 'A required field is missing.', (field: string, where: string) => `${where} is missing the required field '${field}'`),
  empty_field: rule('error', 'A required text field is empty.', (field: string) => `${field} must not be empty`),
  empty_list: rule('error', 'A required list is empty.', (field: string) => `${field} must contain at least one entry`),
  empty_entry: rule('error', 'A list entry is empty after trimming.', (field: string) => `${field} entries must not be empty`),

  // Identity and slugs.
  invalid_slug: rule('error', 'A namespace, name, domain, tag or resource name is not a lowercase slug.', (what: string, value: string, hint: string) =>
    `${what} ${quote(value)} is not a valid slug: use lowercase letters, digits and internal hyphens${hint}`),
  slug_too_long: rule('error', 'A slug is longer than the authoring limit.', (what: string, chars: number, limit: number) => `${what} has ${chars} characters; the limit is ${limit}`),
  name_exceeds_runtime_limit: rule('warning', 'A namespace or name is longer than the fixed runtime binding limit of 64 characters.', (what: string, chars: number, limit: number) =>
    `${what} has ${chars} characters: it can be published under the raised authoring limit, but agents cannot bind names longer than ${limit}`),

  // Description.
  description_chars_exceeded: rule('error', 'The description is longer than the hard limit.', (chars: number, limit: number) => `description has ${chars} characters; the limit is ${limit}`),
  description_chars_high: rule('warning', 'The description is longer than the early quality warning.', (chars: number, limit: number) =>
    `description has ${chars} characters; keep it under ${limit} so selectors can read the catalog quickly`),
  description_missing_activation_language: rule('warning', 'The description has none of the activation phrases selectors look for.', (phrases: string) =>
    `description does not say when the skill applies: include a phrase such as ${phrases}`),

  // Resources.
  duplicate_resource_name: rule('error', 'Two resources share a name.', (name: string, first: number) => `resource name ${quote(name)} is already used by resource ${first}`),
  duplicate_scope: rule('error', 'A resource lists the same boundary twice in applies_to.', (boundary: string) => `applies_to lists '${boundary}' more than once`),
  invalid_boundary: rule('error', 'An applies_to entry is not a V1 boundary.', (value: string) => `applies_to entry ${quote(value)} is not one of planning, continuation, synthesis`),
  invalid_content_type: rule('error', 'A resource content type other than text/plain or text/markdown.', (value: string) =>
    `content_type ${quote(value)} is not accepted: V1 resources are text/plain or text/markdown`),
  empty_content: rule('error', 'A resource has no content.', () => 'resource content must not be empty'),
  load_when_vague: rule('warning', 'A load_when condition too vague to select on.', (text: string) =>
    `load_when ${quote(text)} is too vague to select on: name the concrete request, data or risk that needs this resource`),
  load_when_too_short: rule('warning', 'A load_when condition that is very short.', (chars: number) =>
    `load_when has only ${chars} characters: describe the concrete situation that needs this resource`),
  resource_description_too_short: rule('warning', 'A resource description too short to tell resources apart.', (chars: number) =>
    `resource description has only ${chars} characters: say what the resource contains`),

  // Sizes (guide section 4 table and 9.11).
  manifest_bytes_exceeded: rule('error', 'The main normative content is larger than the byte limit.', (bytes: number, limit: number) =>
    `planning_instructions, response_instructions and tool_hints take ${bytes} bytes; the limit is ${limit}`),
  manifest_tokens_exceeded: rule('error', 'The main normative content exceeds the estimated-token limit.', (tokens: number, limit: number) =>
    `planning_instructions, response_instructions and tool_hints are about ${tokens} tokens; the limit is ${limit}`),
  manifest_tokens_high: rule('warning', 'The main normative content is past the early quality warning.', (tokens: number, limit: number) =>
    `planning_instructions, response_instructions and tool_hints are about ${tokens} tokens; above ${limit}, move conditional procedures into resources`),
  resource_bytes_exceeded: rule('error', 'A resource body is larger than the byte limit.', (bytes: number, limit: number) => `resource content takes ${bytes} bytes; the limit is ${limit}`),
  resource_tokens_exceeded: rule('error', 'A resource body exceeds the estimated-token limit.', (tokens: number, limit: number) => `resource content is about ${tokens} tokens; the limit is ${limit}`),
  resource_tokens_high: rule('warning', 'A resource body is past the early quality warning.', (tokens: number, limit: number) =>
    `resource content is about ${tokens} tokens; above ${limit}, consider splitting it so only the needed part loads`),
  resource_count_exceeded: rule('error', 'More resources than the limit.', (count: number, limit: number) => `the package has ${count} resources; the limit is ${limit}`),
  resource_count_high: rule('warning', 'More resources than the early quality warning.', (count: number, limit: number) =>
    `the package has ${count} resources; above ${limit}, resource selection gets less reliable`),
  package_bytes_exceeded: rule('error', 'The complete package is larger than the limit.', (bytes: number, limit: number) => `the package takes ${bytes} bytes; the limit is ${limit}`),
  package_bytes_high: rule('warning', 'The complete package is past the early quality warning.', (bytes: number, limit: number) => `the package takes ${bytes} bytes; the early warning is at ${limit}`),
  combined_tokens_high: rule('warning', 'Main guidance plus resources is past the combined early warning.', (tokens: number, limit: number) =>
    `instructions and resources together are about ${tokens} tokens; above ${limit}, runtime budgets may omit part of them`),
  change_reason_bytes_exceeded: rule('error', 'change_reason is longer than its byte limit.', (bytes: number, limit: number) => `change_reason takes ${bytes} UTF-8 bytes; the limit is ${limit}`),

  // Text content.
  control_character: rule('error', 'A control character (C0 other than tab and line feed, DEL, or C1).', (codePoint: string) =>
    `control character ${codePoint} is not allowed in package text`),
  bidi_control: rule('error', 'A bidirectional embedding, override or isolate character.', (codePoint: string) =>
    `bidirectional control ${codePoint} can make the text a reviewer sees differ from what the model reads; remove it`),
  lone_surrogate: rule('error', 'An unpaired UTF-16 surrogate: the text is not valid Unicode.', (codePoint: string) => `unpaired surrogate ${codePoint}: the text is not valid Unicode`),
  credential_detected: rule('error', 'Text that looks like a credential or secret.', (kind: string) =>
    `looks like ${kind}: packages must not contain credentials; remove it (and rotate it if it was real)`),
  binary_payload: rule('error', 'Binary data inside text (NUL bytes, large base64 blobs, encoded executables).', (kind: string) =>
    `${kind}: V1 packages carry text only, not binary payloads`),
  executable_content: rule('error', 'Executable content (script tags, javascript: URLs, non-text data: URIs, shebang lines).', (kind: string) =>
    `${kind}: V1 packages must not contain executable content`),
  authority_bypass: rule('error', 'An instruction that tries to bypass authority, approval or policy.', (kind: string, phrase: string) =>
    `${kind} (${quote(phrase)}): a skill cannot override framework, platform or human-approval policy; remove or rephrase it`),
  reserved_tag: rule('warning', 'Text that looks like a reserved framework prompt section tag.', (tag: string) =>
    `${quote(tag)} looks like a reserved framework section; the runtime escapes it, but rephrase it to avoid confusion`),
} as const;

/** A stable finding code. */
export type FindingCode = keyof typeof RULES;

/** Slug syntax (guide section 4): lowercase letters, digits and internal hyphens, no leading or trailing hyphen. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** Whether `value` is a V1 slug (length is checked separately against the limits). */
export function isSlug(value: string): boolean {
  return SLUG_PATTERN.test(value);
}

/** The case-insensitive V1 activation phrases (guide section 4). */
export const ACTIVATION_PHRASES: readonly string[] = ['use when', 'activate when', 'when a', 'when the', 'for requests', 'for tasks', 'whenever'];

/**
 * What authors write besides the guide's phrases, quoted in the warning so an
 * author sees that "Use this when..." counts too.
 */
export const ACTIVATION_PHRASE_EXAMPLES: readonly string[] = ['use this when', 'use it when', 'use this skill whenever', 'use for', 'invoke when', 'trigger when', 'should be used when'];

// A verb that asks for the skill, optionally "this", "it" or "this skill", optionally an
// adverb, then a condition. "for" follows only "use" and "invoke": "apply for a visa" or
// "trigger for" name a purpose, not when the skill applies.
const ACTIVE_VERB = String.raw`(?:use|invoke|trigger|activate|apply|consult)`;
const OBJECT = String.raw`(?:\s+(?:this|it|me|the|this\s+skill|the\s+skill|this\s+tool))?`;
const ADVERB = String.raw`(?:\s+(?:only|also|just|primarily|mainly|especially|specifically))?`;
const CONDITION = String.raw`\s+(?:when|whenever|if|once|any\s*time|every\s+time|in\s+case)\b`;
const ACTIVATION_LANGUAGE = new RegExp(
  [
    // The guide's phrases, as before (substrings: "when a" also matches "when an").
    ACTIVATION_PHRASES.map((p) => p.replace(/ /g, String.raw`\s+`)).join('|'),
    String.raw`\b${ACTIVE_VERB}${OBJECT}${ADVERB}${CONDITION}`,
    String.raw`\b(?:use|invoke)${OBJECT}${ADVERB}\s+for\b`,
    // Passive and third-person forms: "should be used when", "is invoked for", "triggers on".
    String.raw`\b(?:be|is|are|gets?|being)\s+(?:used|invoked|triggered|activated|applied|consulted|loaded|called|selected)${ADVERB}\s+(?:when|whenever|if|for|on|any\s*time)\b`,
    String.raw`\btrigger(?:s|ed)?(?:\s+(?:only|also))?\s+(?:when|whenever|if|on|by|for)\b`,
    String.raw`\btriggers\s+include\b`,
  ].join('|'),
  'i',
);

/**
 * Whether a description says when its skill applies: one of the guide's V1
 * phrases, or the forms authors write for the same thing ("Use this when",
 * "Use it when", "Use for", "Invoke when", "Trigger when", "Activate when",
 * "should be used when"...), case-insensitively and across line breaks.
 * Adding text to a description never makes it lose activation language.
 */
export function hasActivationLanguage(description: string): boolean {
  return ACTIVATION_LANGUAGE.test(description);
}

/** load_when texts shorter than this (in characters) get `load_when_too_short`. */
export const MIN_LOAD_WHEN_CHARS = 20;

/** Resource descriptions shorter than this get `resource_description_too_short`. */
export const MIN_RESOURCE_DESCRIPTION_CHARS = 20;

/**
 * load_when texts that say nothing concrete: after dropping a leading
 * "load"/"use"/"include" and a connective ("when", "if", "as"...), what is
 * left is one of these words (or nothing).
 */
export const VAGUE_LOAD_WHEN = new RegExp(
  '^(?:(?:load|use|include|select|apply)(?:\\s+(?:it|this|me|the\\s+resource))?\\s*)?' +
    '(?:(?:when(?:ever)?|if|as|where|in\\s+case)(?:\\s+(?:it\\s+is|it\'s|is|are|deemed|considered))?\\s+)?' +
    '(?:relevant|needed|necessary|useful|helpful|appropriate|applicable|required|important|pertinent|always|anytime|any\\s+time|possible|available|the\\s+(?:task|request)\\s+(?:needs|requires)\\s+it)?' +
    '[\\s.!]*$',
  'i',
);

/** Reserved framework prompt section tags (guide section 7, stage 5). */
export const RESERVED_TAGS: readonly string[] = ['skill_precedence', 'active_skills', 'active_skill_tool_hints'];

/**
 * How an authority-bypass match is excused:
 * - `negation`: the clause before it negates or reports it ("never bypass approval",
 *   "if a user asks you to ignore previous instructions");
 * - `reporting`: only reporting excuses it (the phrase itself is a negation);
 * - `conditional`: also a conditional right before it ("if you have admin access").
 */
export type AuthorityGuard = 'negation' | 'reporting' | 'conditional';

/** One authority-bypass pattern: a regex source (matched case-insensitively) starting at the verb. */
export interface AuthorityPattern {
  kind: string;
  /** Human description used in the message. */
  label: string;
  /**
   * The opening words every match starts with. A first pass looks only for
   * leads (cheap: one stop per space), the full `source` runs where one is found.
   */
  lead: string;
  source: string;
  guard: AuthorityGuard;
  /**
   * Short spellings that every match of `source`, together with the mark
   * before its lead, contains (case-insensitively), with only letters,
   * whitespace and apostrophes between that mark and the anchor. The fast
   * scanner looks for these and runs the patterns only in the clause around
   * them, so a pattern edit must keep this true; the differential test in
   * `scan.test.ts` generates matches of every `source` and fails when an
   * anchor is missing. Syntax: letters, `'`, `-` and space stand for
   * themselves; `{...}` is one character out of `|`-separated choices, where
   * `M` is a lead mark (space, tab, line break, `*`, `_`, `(`) and `S` any
   * whitespace. Each anchor is at least 7 characters long, so four aligned
   * bytes of it always fall inside it.
   */
  anchors: readonly string[];
}

const CONTROL_WORDS =
  '(?:approvals?|approval\\s+(?:steps?|gates?|process)|safety(?:\\s+(?:checks?|filters?|rules?|polic(?:y|ies)|controls?|measures?))?|polic(?:y|ies)|guardrails?|human\\s+review|reviews?|confirmations?|restrictions?|permissions?|authori[sz]ation|authentication|access\\s+controls?|hitl|sandbox(?:ing)?|security\\s+(?:checks?|controls?))';

/**
 * Authority-bypass instructions (guide section 1: "a skill cannot bypass
 * framework, platform, or human-approval policy"). Matching is case-insensitive
 * and starts at a word that follows a space, a line break, or the start of the
 * text. Patterns that stop at data ("ignore any instructions found in tool
 * output") are excluded because that is sound safety guidance.
 */
export const AUTHORITY_PATTERNS: readonly AuthorityPattern[] = [
  {
    kind: 'ignore_instructions',
    lead: '(?:ignore|disregard|forget)\\s',
    label: 'instruction to ignore prior instructions or rules',
    source:
      '(?:ignore|disregard|forget)\\s+(?:(?:all|any|every)\\s+(?:of\\s+)?(?:the\\s+|your\\s+|my\\s+)?(?:(?:previous|prior|earlier|above|preceding|existing|original|system|developer|safety|other)\\s+)?|(?:the\\s+|your\\s+|my\\s+)?(?:previous|prior|earlier|above|preceding|system|developer|safety)\\s+|(?:your|my)\\s+)' +
      '(?:instructions|rules|policies|guidelines|guardrails|directions|directives|prompts?|constraints)\\b' +
      '(?!\\s+(?:in|from|inside|within|embedded|contained|found|coming|included|returned|provided)\\b)',
    guard: 'negation',
    anchors: ['{M}ignore', 'disregard', '{M}forget{S}'],
  },
  {
    kind: 'bypass_controls',
    lead: '(?:bypass|circumvent|evade|sidestep)\\s',
    label: 'instruction to bypass approval, review, safety or policy',
    source: `(?:bypass|circumvent|evade|sidestep)\\s+(?:the\\s+|any\\s+|all\\s+|your\\s+|our\\s+|these\\s+|those\\s+)?(?:[a-z-]+\\s+)?${CONTROL_WORDS}\\b`,
    guard: 'negation',
    anchors: ['{M}bypass{S}', 'circumvent', '{M}evade{S}', 'sidestep'],
  },
  {
    kind: 'disable_controls',
    lead: '(?:disable|deactivate|turn\\s+off|switch\\s+off)\\s',
    label: 'instruction to disable safety, guardrails or approval',
    source:
      '(?:disable|deactivate|turn\\s+off|switch\\s+off)\\s+(?:the\\s+|any\\s+|all\\s+|your\\s+)?(?:[a-z-]+\\s+)?' +
      '(?:safety(?:\\s+(?:checks?|filters?|features?|rules?|controls?|measures?|mode))?|guardrails?|approvals?|approval\\s+(?:steps?|gates?)|content\\s+filter(?:s|ing)?|audit(?:ing|\\s+logs?|\\s+logging)?|sandbox(?:ing)?|human\\s+review|hitl)\\b',
    guard: 'negation',
    anchors: ['{M}disable', 'deactivate', '{M}turn{S}{S|o}', '{M}switch'],
  },
  {
    kind: 'claims_elevated_access',
    lead: 'you\\s+(?:now\\s+)?(?:have|hold|are\\s+granted)\\s',
    label: 'claim of root or admin access',
    source:
      'you\\s+(?:now\\s+)?(?:have|hold|are\\s+granted|have\\s+been\\s+granted)\\s+(?:full\\s+|unrestricted\\s+|unlimited\\s+|complete\\s+)?' +
      '(?:root|admin|administrator|administrative|superuser|sudo|elevated|unrestricted|god[- ]mode)\\s+(?:access|privileges?|permissions?|rights|mode)\\b',
    guard: 'conditional',
    anchors: ['{S|e|d|l}{S}root{S}', '{S}admin{S|i}', 'superuser', '{S|e|d|l}{S}sudo{S}', 'elevated', 'unrestricted', '{S}god{-| }mo'],
  },
  {
    kind: 'skip_approval',
    lead: "(?:do\\s+not|don't|dont|never|no\\s+need\\s+to)\\s+(?:ask|wait|check)\\s",
    label: 'instruction not to ask for approval or confirmation',
    source: "(?:do\\s+not|don't|dont|never|no\\s+need\\s+to)\\s+(?:ask|wait|check)\\s+(?:for\\s+|with\\s+)?(?:the\\s+|any\\s+|user\\s+|human\\s+|their\\s+|explicit\\s+)?(?:approval|confirmation|permission|consent|sign-?off)\\b",
    guard: 'reporting',
    anchors: ['{o|S}{S}not{S}{S|a|w|c}', "{M}don't{S}", '{M}dont{S}{S|a|w|c}', '{M}never{S}', '{o|S}{S}need{S}'],
  },
  {
    kind: 'skip_approval',
    lead: 'without\\s+(?:asking|waiting|requesting|seeking|getting|obtaining)\\s',
    label: 'instruction to act without approval or confirmation',
    source: 'without\\s+(?:asking|waiting|requesting|seeking|getting|obtaining)\\s+(?:for\\s+)?(?:the\\s+|any\\s+|user\\s+|human\\s+|their\\s+|explicit\\s+)?(?:approval|confirmation|permission|consent|sign-?off)\\b',
    guard: 'negation',
    anchors: ['{M}without{S}'],
  },
  {
    kind: 'skip_approval',
    lead: 'skip\\s',
    label: 'instruction to skip approval, confirmation or review',
    source: 'skip\\s+(?:the\\s+|any\\s+|all\\s+)?(?:approval|confirmation|human\\s+review|review|hitl|sign-?off|safety\\s+checks?)(?:\\s+(?:steps?|gates?|process|checks?|prompts?))?\\b',
    guard: 'negation',
    anchors: ['{M}skip{S}{S|t|a|c|h|r|s}'],
  },
  {
    kind: 'override_system',
    lead: 'override\\s',
    label: 'instruction to override the system prompt or policy',
    source:
      'override\\s+(?:the\\s+|any\\s+|all\\s+|your\\s+)?(?:system\\s+(?:prompt|instructions|message|rules)|developer\\s+(?:instructions|message|prompt)|safety\\s+(?:rules|polic(?:y|ies)|settings|guidelines)|guardrails|framework\\s+(?:rules|policies)|(?:previous|prior)\\s+instructions)\\b',
    guard: 'negation',
    anchors: ['override'],
  },
  {
    kind: 'impersonate_privileged_role',
    lead: '(?:act|behave)\\s+as\\s',
    label: 'instruction to act as the system or developer',
    source:
      '(?:act|behave)\\s+as\\s+(?:if\\s+you\\s+(?:are|were)\\s+)?(?:the\\s+)?(?:system|developer)(?:\\s+(?:prompt|message|role))?\\b' +
      '(?!-|\\s+(?:administrator|admin|engineer|architect|analyst|operator|designer|integrator|owner|team|account|user|would|does)\\b)',
    guard: 'negation',
    anchors: ['{S}system', 'developer'],
  },
  {
    kind: 'impersonate_privileged_role',
    lead: '(?:you\\s+are\\s+now|pretend\\s+(?:to\\s+be|you\\s+are))\\s',
    label: 'claim to be the system, developer or an administrator',
    source: '(?:you\\s+are\\s+now|pretend\\s+(?:to\\s+be|you\\s+are))\\s+(?:the\\s+|a\\s+|an\\s+|in\\s+)?(?:system|developer|root|admin|administrator|superuser|unrestricted|jailbroken|dan)\\b(?!\\s+(?:administrator|engineer)\\b)',
    guard: 'negation',
    anchors: ['pretend', '{S|e}{S}now{S}{S|t|a|i|s|d|r|u|j}'],
  },
  {
    kind: 'jailbreak_mode',
    lead: '(?:enable|enter|activate|switch\\s+to)\\s+(?:the\\s+)?(?:god|jailbreak|dan|unrestricted)\\s',
    label: 'instruction to enter an unrestricted mode',
    source: '(?:enable|enter|activate|switch\\s+to)\\s+(?:the\\s+)?(?:god|jailbreak|dan|unrestricted)\\s+mode\\b',
    guard: 'negation',
    anchors: ['jailbreak', 'unrestricted', '{S|e|r|o}{S}god{S}{S|m}', '{S|e|r|o}{S}dan{S}{S|m}'],
  },
  {
    kind: 'escalate_privileges',
    lead: '(?:escalate|elevate|grant|give)\\s+(?:your|its|yourself)',
    label: 'instruction to escalate its own privileges',
    source: '(?:(?:escalate|elevate)\\s+(?:your\\s+own|your|its\\s+own)|(?:grant|give)\\s+yourself(?:\\s+[a-z-]+)?)\\s+(?:access|permissions?|privileges?|rights|approval)\\b',
    guard: 'negation',
    anchors: ['escalate', 'elevate', 'yourself'],
  },
];

/** A clause with one of these before an authority phrase negates it. */
export const NEGATION_CUES =
  /\b(?:not|never|no|cannot|avoid|refuse|decline|reject|prohibit(?:ed|s)?|forbid(?:den|s)?|disallow(?:ed|s)?)\b|n't\b/i;

/** A clause with one of these before an authority phrase reports or quotes it rather than instructs. */
export const REPORTING_CUES =
  /\b(?:asks?|asked|asking|requests?|requested|requesting|tells?|told|telling|tries|tried|trying|attempts?|attempted|attempting|wants?|wanted|instructs?|instructed|claims?|claimed|says?|said|suggests?|suggested|urges?|urged|demands?|demanded|detects?|flags?|reports?|recogni[sz]es?|such\s+as|for\s+example|e\.g\.)\b/i;

/** A conditional word right before an authority phrase makes it a condition, not a claim. */
export const CONDITIONAL_CUES = /\b(?:if|whether|when|unless|once|while|since|because|that|ensure|verify|check|confirm)\s*$/i;

/** Kinds of credential recognised inside one run of token characters. */
export interface CredentialPattern {
  kind: string;
  /** What the message says the text looks like (never the text itself). */
  label: string;
  source: string;
  /** Extra check on the matched text, to keep prose words out. */
  verify?: (match: string) => boolean;
}

const mixed = (text: string): boolean => /[0-9]/.test(text) && /[A-Z]/.test(text) && /[a-z]/.test(text);

/** Token-shaped credentials. Each source is case-sensitive and matched inside a run of token characters. */
export const CREDENTIAL_PATTERNS: readonly CredentialPattern[] = [
  { kind: 'aws_access_key', label: 'an AWS access key ID', source: '(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}(?![0-9A-Za-z])', verify: (m) => !m.endsWith('EXAMPLE') },
  { kind: 'github_token', label: 'a GitHub token', source: 'gh[pousr]_[A-Za-z0-9]{36,}' },
  { kind: 'github_token', label: 'a GitHub fine-grained token', source: 'github_pat_[A-Za-z0-9_]{22,}' },
  { kind: 'slack_token', label: 'a Slack token', source: 'xox[abeprs]-[A-Za-z0-9-]{10,}', verify: (m) => /[0-9]/.test(m) },
  { kind: 'ai_api_key', label: 'an OpenAI or Anthropic API key', source: 'sk-(?:ant-(?:api|admin)[0-9]{2}-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}', verify: (m) => mixed(m.slice(3)) },
  { kind: 'stripe_key', label: 'a Stripe secret key', source: '[rs]k_(?:live|test)_[A-Za-z0-9]{20,}' },
  { kind: 'google_api_key', label: 'a Google API key', source: 'AIza[0-9A-Za-z_-]{35}' },
  { kind: 'jwt', label: 'a JSON Web Token', source: 'eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*' },
];

/** PEM private key blocks (RSA, EC, OpenSSH, PGP, PKCS#8...). */
export const PRIVATE_KEY_PATTERN = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g;

/**
 * Names whose `name: value` / `name = value` assignment with a literal value is
 * a credential (also as the end of a longer identifier: `DB_PASSWORD=`).
 */
export const SECRET_NAMES =
  'password|passwd|passphrase|pwd|secret|client[_-]?secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|api[_-]?token|bearer[_-]?token|token';

/**
 * Values that are placeholders or references, not literal secrets: `<...>`,
 * `${VAR}`, `{{ ... }}`, `$VAR`, `%VAR%`, masks, and common stand-ins.
 */
export const PLACEHOLDER_VALUE =
  /^(?:<[^>]*>?|\$\{[^}]*\}?|\$\(|\$[A-Za-z_][\w.]*|\{\{.*|%[\w.]+%|[*x•.…_-]+|\[[^\]]*\]|null|none|nil|undefined|true|false|empty|redacted|hidden|masked|secret|password|changeme|change[-_]?me|example[\w-]*|placeholder|dummy|sample|test|your[-_].*|my[-_].*|(?:process\.env|os\.environ|os\.getenv|getenv|env|vault|secrets?|ref)\b.*)$/i;

/** Binary executable signatures as they start in base64. */
export const EXECUTABLE_MAGIC: readonly { prefix: string; label: string }[] = [
  { prefix: 'TVqQ', label: 'a base64-encoded Windows executable (PE)' },
  { prefix: 'TVpQ', label: 'a base64-encoded Windows executable (PE)' },
  { prefix: 'TVoA', label: 'a base64-encoded Windows executable (PE)' },
  { prefix: 'f0VMR', label: 'a base64-encoded Linux executable (ELF)' },
  { prefix: 'z/rt', label: 'a base64-encoded macOS executable (Mach-O)' },
  { prefix: 'zvrt', label: 'a base64-encoded macOS executable (Mach-O)' },
  { prefix: '/u36z', label: 'a base64-encoded macOS executable (Mach-O)' },
  { prefix: 'yv66vg', label: 'a base64-encoded Java class or universal binary' },
];

/** Base64 runs encoding more than about 1 KiB are binary payloads (1368 characters encode 1026 bytes). */
export const MAX_BASE64_CHARS = 1368;

/** Upper bound on findings of one code inside one string, so a pasted binary does not flood the report. */
export const MAX_HITS_PER_STRING = 10;

/** Upper bound on findings of one validation. */
export const MAX_FINDINGS = 1000;
