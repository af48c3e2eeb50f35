import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PACKAGE_SCHEMA_ID, packageJsonSchema, type JsonSchema } from '../../../../core/package/schema';
import { isSlug } from '../../../../core/package/rules';
import { BOUNDARIES } from '../../../../core/package/types';
import { baseline } from './baseline';

type Node = JsonSchema & { properties?: Record<string, Node>; items?: Node };

function objects(node: Node, out: Node[] = []): Node[] {
  if (node.type === 'object') out.push(node);
  for (const child of Object.values(node.properties ?? {})) objects(child, out);
  if (node.items) objects(node.items, out);
  return out;
}

describe('packageJsonSchema', () => {
  const schema = packageJsonSchema() as Node;

  it('is a draft 2020-12 schema with an $id', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(PACKAGE_SCHEMA_ID);
  });

  it('closes every object and describes every property', () => {
    for (const node of objects(schema)) {
      expect(node.additionalProperties).toBe(false);
      for (const [name, child] of Object.entries(node.properties ?? {})) expect(typeof child.description, name).toBe('string');
    }
  });

  it('lists the package fields and required fields of the format', () => {
    expect(Object.keys(schema.properties!).sort()).toEqual(Object.keys(baseline()).sort());
    expect(schema.required).toEqual(['display_name', 'description', 'planning_instructions', 'change_reason']);
    const resource = schema.properties!.resources!.items!;
    expect(Object.keys(resource.properties!).sort()).toEqual(Object.keys(baseline().resources[0]!).sort());
    expect(resource.required).toEqual(['name', 'description', 'load_when', 'content_type', 'content']);
    expect(resource.properties!.applies_to!.items!.enum).toEqual([...BOUNDARIES]);
    expect(resource.properties!.content_type!.enum).toEqual(['text/plain', 'text/markdown']);
  });

  it('reflects the limits it is given', () => {
    const custom = packageJsonSchema({ maxDescriptionChars: 500, maxResources: 4, maxNameChars: 40 }) as Node;
    expect(custom.properties!.description!.maxLength).toBe(500);
    expect(custom.properties!.resources!.maxItems).toBe(4);
    expect(custom.properties!.tags!.items!.maxLength).toBe(40);
    expect(() => packageJsonSchema({ maxResources: -1 })).toThrow();
  });

  it('uses slug patterns that agree with the validator', () => {
    const names = new RegExp(schema.properties!.resources!.items!.properties!.name!.pattern as string);
    const labels = new RegExp(schema.properties!.tags!.items!.pattern as string);
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'Z', '0', '-', '_', ' ') }), (text) => {
        expect(names.test(text)).toBe(isSlug(text.trim()));
        expect(labels.test(text)).toBe(isSlug(text.trim().toLowerCase()));
      }),
    );
  });
});
