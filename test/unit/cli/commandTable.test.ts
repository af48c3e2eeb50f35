import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { COMMAND_TABLE, commandGroups, flagInfo } from '../../../cli/commandTable';
import { commandNames, loadCommand } from '../../../cli/main';

/** Every `--flag` a usage text mentions. */
function usageFlags(usage: string): Set<string> {
  return new Set([...usage.matchAll(/--[a-z][a-z0-9-]*/g)].map((m) => m[0]));
}

describe('the static command table', () => {
  it('describes exactly the registered commands', () => {
    expect(Object.keys(COMMAND_TABLE).sort()).toEqual(commandNames());
  });

  it("lists exactly the flags each command's usage text documents", async () => {
    for (const name of commandNames()) {
      const command = await loadCommand(name);
      const inTable = new Set(COMMAND_TABLE[name]!.flags.map((f) => flagInfo(f).name));
      expect([...inTable].sort(), name).toEqual([...usageFlags(command!.usage)].sort());
    }
  });

  it('groups the two-word commands under their first word', () => {
    expect(commandGroups().get('review')).toEqual(['approve', 'create', 'list', 'publish', 'reject', 'show']);
    expect(commandGroups().get('registry')).toEqual(['serve']);
    expect(commandGroups().has('validate')).toBe(false);
  });
});

describe('flagInfo', () => {
  it('reads switches, values, optional values and choices', () => {
    expect(flagInfo('--json')).toEqual({ name: '--json', optional: false });
    expect(flagInfo('--from CONN')).toEqual({ name: '--from', value: 'CONN', optional: false });
    expect(flagInfo('--json [F]')).toEqual({ name: '--json', value: 'F', optional: true });
    expect(flagInfo('--boundary planning|continuation')).toEqual({ name: '--boundary', value: 'planning|continuation', optional: false, choices: ['planning', 'continuation'] });
  });

  it('keeps the flag name and value of any notation it is given', () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
    fc.assert(
      fc.property(word, fc.option(fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join('|'))), fc.boolean(), (flag, value, optional) => {
        const text = value === null ? `--${flag}` : `--${flag} ${optional ? `[${value}]` : value}`;
        const info = flagInfo(text);
        expect(info.name).toBe(`--${flag}`);
        if (value === null) expect(info.value).toBeUndefined();
        else {
          expect(info.value).toBe(value);
          expect(info.optional).toBe(optional);
          if (value.includes('|')) expect(info.choices).toEqual(value.split('|'));
        }
      }),
    );
  });
});
