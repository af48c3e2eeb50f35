/**
 * The JSON Schema (draft 2020-12) of a V1 package: what `GET
 * /api/v1/skills/schema` serves and what the editor uses for completion and
 * hovers. It states what JSON Schema can express (types, required fields,
 * unknown fields, enums, slug patterns, lengths in characters, list sizes);
 * `validatePackage` stays authoritative for normalization, byte and token
 * limits and the content checks.
 *
 * Isomorphic: no `node:` imports.
 */
import { resolveLimits } from './limits';
import { BOUNDARIES, type SkillAuthoringLimits } from './types';

/** `$id` of the package schema. */
export const PACKAGE_SCHEMA_ID = 'urn:truvag3:v1:skill-package';

/** A JSON Schema document (plain JSON data). */
export type JsonSchema = Record<string, unknown>;

// Slugs as submitted: domains and tags may differ in case and surrounding
// whitespace (normalization lowercases and trims them); resource names may
// only be trimmed.
const LABEL_PATTERN = '^\\s*[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\\s*$';
const RESOURCE_NAME_PATTERN = '^\\s*[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\\s*$';
const NON_BLANK = '\\S';

/**
 * The package schema for the given limits (defaults when omitted). Throws a
 * `WorkbenchError` (`invalid_request`) when a limit is not a positive integer.
 */
export function packageJsonSchema(limits?: Partial<SkillAuthoringLimits>): JsonSchema {
  const l = resolveLimits(limits);
  const entries = (description: string, itemDescription: string): JsonSchema => ({
    type: 'array',
    description,
    items: { type: 'string', pattern: NON_BLANK, description: itemDescription },
  });
  const labels = (description: string): JsonSchema => ({
    type: 'array',
    description,
    items: { type: 'string', pattern: LABEL_PATTERN, maxLength: l.maxNameChars, description: 'A lowercase slug: letters, digits and internal hyphens.' },
  });
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: PACKAGE_SCHEMA_ID,
    title: 'TruvaG3 V1 skill package',
    description:
      'One complete skill package as submitted for validation and publication. Namespace and name come from the URL path, not from this body.',
    type: 'object',
    additionalProperties: false,
    required: ['display_name', 'description', 'planning_instructions', 'change_reason'],
    properties: {
      display_name: { type: 'string', pattern: NON_BLANK, description: 'Human-readable title shown in authoring and operator views.' },
      description: {
        type: 'string',
        pattern: NON_BLANK,
        maxLength: l.maxDescriptionChars,
        description: `Catalog text selectors read to decide activation: say what the skill covers and when it applies ("Use when ..."). Keep it under ${l.warnDescriptionChars} characters; at most ${l.maxDescriptionChars}.`,
      },
      domains: labels('Lowercase taxonomy labels for compatibility checks and catalog filtering. Not part of the identity.'),
      tags: labels('Lowercase searchable labels.'),
      planning_instructions: {
        ...entries('Positive procedural guidance projected into planning and continuation prompts.', 'One planning instruction.'),
        minItems: 1,
      },
      response_instructions: entries('Guidance projected into synthesis prompts.', 'One response instruction.'),
      tool_hints: entries('Hints for tiered capability selection. They do not add or authorize tools.', 'One tool hint, usually a capability name.'),
      resources: {
        type: 'array',
        description: `Independently selectable text references (at most ${l.maxResources}; more than ${l.warnResources} makes selection less reliable).`,
        maxItems: l.maxResources,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'description', 'load_when', 'content_type', 'content'],
          properties: {
            name: {
              type: 'string',
              pattern: RESOURCE_NAME_PATTERN,
              maxLength: l.maxNameChars,
              description: 'Unique lowercase slug of the resource within the package.',
            },
            description: { type: 'string', pattern: NON_BLANK, description: 'What the resource contains, so a selector can tell resources apart.' },
            load_when: {
              type: 'string',
              pattern: NON_BLANK,
              description: 'The concrete situation that needs this resource, e.g. "Load when the request includes a production deletion."',
            },
            applies_to: {
              type: 'array',
              uniqueItems: true,
              description: 'Boundaries where the resource may load. Empty or omitted means every boundary.',
              items: { type: 'string', enum: [...BOUNDARIES] },
            },
            required_when_selected: {
              type: 'boolean',
              default: false,
              description: 'Once selected, a load, integrity, limit or admission failure fails the boundary. It does not force selection.',
            },
            content_type: { type: 'string', enum: ['text/plain', 'text/markdown'], description: 'V1 accepts non-executable text only.' },
            content: {
              type: 'string',
              pattern: NON_BLANK,
              description: `The resource body, loaded only when selected. At most ${l.maxResourceBytes} UTF-8 bytes and about ${l.maxResourceTokens} tokens.`,
            },
          },
        },
      },
      activation_examples: {
        type: 'object',
        additionalProperties: false,
        description: 'Labelled requests for evaluation and authoring; never included in runtime prompts.',
        properties: {
          should_activate: entries('Requests that should activate the skill.', 'One request.'),
          should_not_activate: entries('Nearby requests that should not activate it.', 'One request.'),
        },
      },
      change_reason: {
        type: 'string',
        pattern: NON_BLANK,
        // Characters bound bytes from below; the byte limit itself is checked by validation.
        maxLength: l.maxChangeReasonBytes,
        description: `Audit explanation for this publication attempt; at most ${l.maxChangeReasonBytes} UTF-8 bytes. Changing only this field does not create a new revision.`,
      },
    },
  };
}
