/**
 * `skillbench completion bash|zsh|fish`: a completion script generated from the
 * static command table (cli/commandTable.ts), so it always matches this
 * version's commands and flags. Saved connection names are completed live
 * from `skillbench connection list --names`.
 */
import { COMMAND_TABLE, commandGroups, flagInfo, type FlagInfo } from '../commandTable';
import { EXIT, UsageError } from '../exit';
import type { CliIo } from '../io';
import type { Command } from '../main';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
const ALWAYS = ['--help', '--debug'];

/** How a flag's value is completed. */
function valueKind(f: FlagInfo): 'connection' | 'connection-or-dir' | 'dir' | 'file' | 'choices' | 'free' {
  if (f.choices) return 'choices';
  if (f.value === 'CONN') return 'connection';
  if (f.value === 'CONN_OR_DIR') return 'connection-or-dir';
  if (f.value === 'DIR') return 'dir';
  if (f.value === 'FILE' || f.value === 'F' || f.value === 'FILE_OR_JSON') return 'file';
  return 'free';
}

/** The first words: single commands and group names. */
function topWords(): string[] {
  return [...new Set(Object.keys(COMMAND_TABLE).map((n) => n.split(' ')[0]!))].sort();
}

function bash(): string {
  const groups = commandGroups();
  const valueCases: string[] = [];
  const flagCases: string[] = [];
  // Commands whose operand is a saved connection (`connection test NAME`).
  const connectionOperands = Object.entries(COMMAND_TABLE).filter(([, spec]) => spec.operands === 'CONN').map(([name]) => `"${name}"`);
  for (const [name, spec] of Object.entries(COMMAND_TABLE)) {
    const flags = spec.flags.map(flagInfo);
    for (const f of flags) {
      if (f.value === undefined || f.optional) continue;
      const kind = valueKind(f);
      const reply =
        kind === 'choices'
          ? `COMPREPLY=($(compgen -W "${f.choices!.join(' ')}" -- "$cur"))`
          : kind === 'connection'
            ? '_skillbench_connections'
            : kind === 'connection-or-dir'
              ? '_skillbench_connections; COMPREPLY+=($(compgen -d -- "$cur"))'
              : kind === 'dir'
                ? 'COMPREPLY=($(compgen -d -- "$cur"))'
                : kind === 'file'
                  ? 'COMPREPLY=($(compgen -f -- "$cur"))'
                  : 'COMPREPLY=()';
      valueCases.push(`    "${name}|${f.name}") ${reply}; return ;;`);
    }
    flagCases.push(`    "${name}") flags="${[...new Set(flags.map((f) => f.name))].concat(ALWAYS).join(' ')}" ;;`);
  }
  const groupCase = [...groups].map(([g, subs]) => `    ${g}) if ((COMP_CWORD == 2)); then COMPREPLY=($(compgen -W "${subs.join(' ')} --help" -- "$cur")); return; fi; key="${g} \${COMP_WORDS[2]}" ;;`);
  return `# skillbench completion for bash. Load it in this shell:
#   source <(skillbench completion bash)
# or for every shell: skillbench completion bash > ~/.local/share/bash-completion/completions/skillbench
_skillbench_connections() {
  COMPREPLY=($(compgen -W "$(skillbench connection list --names 2>/dev/null)" -- "$cur"))
}
_skillbench() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" key flags=""
  if ((COMP_CWORD == 1)); then
    COMPREPLY=($(compgen -W "${topWords().join(' ')} --help --version" -- "$cur"))
    return
  fi
  key="\${COMP_WORDS[1]}"
  case "$key" in
${groupCase.join('\n')}
  esac
  case "$key|$prev" in
${valueCases.join('\n')}
  esac
  case "$key" in
${flagCases.join('\n')}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    return
  fi
  case "$key" in
${connectionOperands.length > 0 ? `    ${connectionOperands.join('|')}) _skillbench_connections ;;\n` : ''}    *) COMPREPLY=($(compgen -f -- "$cur")) ;;
  esac
}
complete -o filenames -F _skillbench skillbench
`;
}

/** zsh runs the bash function through its bash-completion layer, so both shells complete the same words. */
function zsh(): string {
  return `# skillbench completion for zsh. Load it in this shell:
#   source <(skillbench completion zsh)
# or add that line to ~/.zshrc (after compinit).
autoload -U +X bashcompinit && bashcompinit
${bash()
  .split('\n')
  .filter((line) => !line.startsWith('# '))
  .join('\n')}`;
}

function fish(): string {
  const lines = [
    '# skillbench completion for fish. Save it: skillbench completion fish > ~/.config/fish/completions/skillbench.fish',
    'complete -c skillbench -f',
    `complete -c skillbench -n __fish_use_subcommand -a "${topWords().join(' ')}"`,
    'complete -c skillbench -n __fish_use_subcommand -l version -d "print the version"',
    'complete -c skillbench -l help -d "print the usage"',
    'complete -c skillbench -l debug -d "stack trace of an internal error"',
  ];
  for (const [group, subs] of commandGroups()) {
    lines.push(`complete -c skillbench -n "__fish_seen_subcommand_from ${group}; and not __fish_seen_subcommand_from ${subs.join(' ')}" -a "${subs.join(' ')}"`);
  }
  for (const [name, spec] of Object.entries(COMMAND_TABLE)) {
    const words = name.split(' ');
    const when = words.map((w) => `__fish_seen_subcommand_from ${w}`).join('; and ');
    for (const f of spec.flags.map(flagInfo)) {
      const kind = f.value === undefined ? undefined : valueKind(f);
      const value =
        kind === undefined
          ? ''
          : kind === 'choices'
            ? ` -x -a "${f.choices!.join(' ')}"`
            : kind === 'connection' || kind === 'connection-or-dir'
              ? ' -x -a "(skillbench connection list --names 2>/dev/null)"'
              : kind === 'dir'
                ? ' -x -a "(__fish_complete_directories)"'
                : kind === 'file'
                  ? ' -r -F'
                  : ' -x';
      lines.push(`complete -c skillbench -n "${when}" -l ${f.name.slice(2)}${value}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

async function run(args: string[], io: CliIo): Promise<number> {
  if (args.length !== 1) throw new UsageError(`give one shell: ${SHELLS.join(', ')}`);
  const shell = args[0]!;
  if (!(SHELLS as readonly string[]).includes(shell)) throw new UsageError(`unknown shell '${shell}': use ${SHELLS.join(', ')}`);
  io.stdout.write(shell === 'bash' ? bash() : shell === 'zsh' ? zsh() : fish());
  return EXIT.ok;
}

const usage = `Usage: skillbench completion bash|zsh|fish

Prints a script that completes skillbench's commands, flags, their choices,
files and folders, and saved connection names wherever a command takes a store.
Load it in the current shell:

  bash:  source <(skillbench completion bash)
  zsh:   source <(skillbench completion zsh)       (after compinit)
  fish:  skillbench completion fish | source

or save it where the shell loads completions (see each script's first line).`;

/** The `completion` command. */
export const command: Command = { summary: 'Print a shell completion script (bash, zsh or fish)', usage, run };
