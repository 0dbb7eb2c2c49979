/**
 * Shell completion scripts for bash, zsh and fish, generated from the command tree (via the same
 * description `mq help --json` prints), so they cannot drift from the program.
 *
 * Each script carries its data as case tables: subcommands and flags with their descriptions,
 * what an option's value is (a fixed list, a profile name, a file, a directory, free text) and
 * what each positional argument is. It walks the words typed so far to find the command path.
 *
 * Nothing read at completion time is ever evaluated: profile names come from
 * `mq profile list -o plain`, are kept only when they are valid profile names, and are compared
 * as plain strings (no `compgen -W`, no `eval`, nothing spliced into code).
 */
import { PRIORITY_NAMES } from '../api/constants.js';
import type { CommandDescription, OptionDescription } from '../help/describe.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Help topics that are not commands (see `mq help`). */
const HELP_TOPICS = [
  { name: 'exit-codes', summary: 'the exit codes of mq' },
  { name: 'environment', summary: 'the environment variables mq reads' },
];

/** What completes a value: fixed words (with descriptions), profile names, files, directories, or nothing. */
type ValueKind = { words: Array<{ name: string; summary: string }> } | { special: '@profiles' | '@file' | '@dir' | '@any' };

interface Node {
  path: string;
  subcommands: Array<{ name: string; summary: string }>;
  options: OptionDescription[];
  /** Kinds of the positional arguments in order; the last one repeats when variadic. */
  positionals: ValueKind[];
  variadic: boolean;
}

interface Tree {
  nodes: Node[];
  globals: OptionDescription[];
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const words = (names: readonly string[]): ValueKind => ({ words: names.map((name) => ({ name, summary: '' })) });

/** Positional arguments whose values mq knows (by command path and argument name). */
function positionalKind(path: string, arg: CommandDescription['arguments'][number], topLevel: Array<{ name: string; summary: string }>): ValueKind {
  if (arg.choices) return words(arg.choices);
  if (path === 'mq completion') return words(SHELLS);
  if (path === 'mq help') return { words: [...HELP_TOPICS, ...topLevel] };
  if (/^mq profile /.test(path) && arg.name === 'name') return { special: '@profiles' };
  // "one of a, b, c" in the argument's help names its values.
  const listed = /^one of ([a-z0-9_-]+(?:, [a-z0-9_-]+)+)$/i.exec(arg.description)?.[1];
  if (listed) return words(listed.split(', '));
  return { special: '@any' };
}

function nodesOf(cmd: CommandDescription, path: string, out: Node[], topLevel: Array<{ name: string; summary: string }>): void {
  out.push({
    path,
    subcommands: cmd.commands.flatMap((c) => [c.name, ...c.aliases].map((name) => ({ name, summary: oneLine(c.summary) }))),
    options: cmd.options,
    positionals: cmd.arguments.map((a) => positionalKind(path, a, topLevel)),
    variadic: cmd.arguments.at(-1)?.variadic === true,
  });
  // An alias is a path of its own (`mq profile rm` completes as `mq profile remove`).
  for (const c of cmd.commands) for (const name of [c.name, ...c.aliases]) nodesOf(c, `${path} ${name}`, out, topLevel);
}

export function treeOf(program: { globalOptions: OptionDescription[]; commands: CommandDescription[] }): Tree {
  const topLevel = program.commands.flatMap((c) => [c.name, ...c.aliases].map((name) => ({ name, summary: oneLine(c.summary) })));
  const nodes: Node[] = [{ path: 'mq', subcommands: topLevel, options: [], positionals: [], variadic: false }];
  for (const c of program.commands) for (const name of [c.name, ...c.aliases]) nodesOf(c, `mq ${name}`, nodes, topLevel);
  // commander's own --help is not in the options list, but is accepted everywhere.
  const help: OptionDescription = {
    flags: '-h, --help',
    long: '--help',
    short: '-h',
    description: 'show help',
    type: 'boolean',
    negate: false,
    required: false,
  };
  return { nodes, globals: [...program.globalOptions, help] };
}

const flagsOf = (o: OptionDescription) => [o.long, o.short].filter((f): f is string => Boolean(f));
const takesValue = (o: OptionDescription) => o.type !== 'boolean';

/** Options whose values are listed in their help rather than declared as choices. */
const EXTRA_CHOICES: Record<string, readonly string[]> = { '--priority': PRIORITY_NAMES };

function valueKind(o: OptionDescription): ValueKind {
  if (o.choices) return words(o.choices);
  if (o.long && EXTRA_CHOICES[o.long]) return words(EXTRA_CHOICES[o.long] as readonly string[]);
  if (o.long === '--profile') return { special: '@profiles' };
  if (/<(dir|directory)>/.test(o.flags)) return { special: '@dir' };
  if (/<(path|file)>/.test(o.flags)) return { special: '@file' };
  return { special: '@any' };
}

/** Lines a table function prints for a kind: `@special`, or `word<TAB>description`. */
function kindLines(kind: ValueKind): string[] {
  return 'special' in kind ? [kind.special] : kind.words.map((w) => `${w.name}\t${w.summary}`);
}

const HEADER = '# Generated by `npm run completions` from the mq command tree. Do not edit by hand.';
/** A single-quoted shell word (bash and zsh). */
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The data as shell functions (bash and zsh share this syntax). Each prints lines; a line is
 * `word<TAB>description` or one of @profiles @file @dir @any.
 */
function tables(tree: Tree): string {
  const lines: string[] = [];
  const printLines = (ls: string[]) => `printf '%s\\n' ${ls.map(q).join(' ')}`;
  lines.push('__mq_subcommands() {', '  case "$1" in');
  for (const n of tree.nodes) if (n.subcommands.length) lines.push(`    ${q(n.path)}) ${printLines(n.subcommands.map((s) => `${s.name}\t${s.summary}`))} ;;`);
  lines.push('  esac', '}');
  lines.push('__mq_options() {', '  case "$1" in');
  for (const n of tree.nodes) {
    const opts = [...n.options, ...tree.globals].flatMap((o) => flagsOf(o).map((f) => `${f}\t${oneLine(o.description)}`));
    lines.push(`    ${q(n.path)}) ${printLines(opts)} ;;`);
  }
  lines.push('  esac', '}');
  // "<path> <flag>" -> what its value is; status 1 for options without a value.
  lines.push('__mq_option_value() {', '  case "$1" in');
  for (const n of tree.nodes) {
    for (const o of [...n.options, ...tree.globals]) {
      if (!takesValue(o)) continue;
      for (const f of flagsOf(o)) lines.push(`    ${q(`${n.path} ${f}`)}) ${printLines(kindLines(valueKind(o)))} ;;`);
    }
  }
  lines.push('    *) return 1 ;;', '  esac', '}');
  // "<path> <index>" -> what that positional argument is.
  lines.push('__mq_positional() {', '  case "$1" in');
  for (const n of tree.nodes) {
    n.positionals.forEach((kind, i) => {
      // A variadic last argument takes every later position too.
      const upTo = n.variadic && i === n.positionals.length - 1 ? 20 : i;
      const keys = Array.from({ length: upTo - i + 1 }, (_, k) => q(`${n.path} ${i + k}`));
      lines.push(`    ${keys.join('|')}) ${printLines(kindLines(kind))} ;;`);
    });
  }
  lines.push('    *) return 1 ;;', '  esac', '}');
  return lines.join('\n');
}

/**
 * Walks the typed words: sets __mq_cmdpath (e.g. "mq queue update") and __mq_npos (positional
 * arguments after it). (zsh ties `$path` to `$PATH`: never use that name.)
 */
const WALK = `__mq_walk() {
  __mq_cmdpath="mq"
  __mq_npos=0
  local w skip=0
  for w in "$@"; do
    if [ "$skip" = 1 ]; then
      [ "$w" = "=" ] || skip=0
      continue
    fi
    case "$w" in
      --*=*) continue ;;
      -*) if __mq_option_value "$__mq_cmdpath $w" >/dev/null; then skip=1; fi; continue ;;
    esac
    if [ "$__mq_npos" = 0 ] && __mq_subcommands "$__mq_cmdpath" | cut -f1 | grep -qxF -- "$w"; then
      __mq_cmdpath="$__mq_cmdpath $w"
    else
      __mq_npos=$((__mq_npos + 1))
    fi
  done
}
# Profile names, one a line; anything that is not a valid name is dropped, never evaluated.
__mq_profiles() {
  command mq profile list -o plain 2>/dev/null | cut -f2 | grep -E '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'
}`;

export function bashScript(tree: Tree): string {
  return `${HEADER}
# bash: source this file, or copy it to /etc/bash_completion.d/mq
${tables(tree)}
${WALK}
# Adds the lines on stdin (word<TAB>description) that start with $1 to COMPREPLY, as plain strings.
__mq_reply() {
  local line word
  while IFS= read -r line; do
    word="\${line%%$'\\t'*}"
    [[ -n "$word" && "$word" == "$1"* ]] && COMPREPLY+=("$word")
  done
}
# Completes the value kind printed on stdin for the word $1.
__mq_value() {
  local kinds
  kinds="$(cat)"
  case "$kinds" in
    @any) ;;
    @profiles) __mq_reply "$1" < <(__mq_profiles) ;;
    @file) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$1") ;;
    @dir) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$1") ;;
    *) __mq_reply "$1" <<< "$kinds" ;;
  esac
}
_mq() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" end=$((COMP_CWORD - 1)) kinds
  COMPREPLY=()
  [ "$COMP_CWORD" -gt 1 ] && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  # --opt=value arrives as "--opt" "=" "value" (= is a word break).
  if [ "$cur" = "=" ]; then
    cur=""
  elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 2 ]; then
    prev="\${COMP_WORDS[COMP_CWORD-2]}"
    end=$((COMP_CWORD - 2))
  fi
  __mq_walk "\${COMP_WORDS[@]:1:end}"
  case "$prev" in
    '<'|'>'|'>>'|'2>'|'&>'|'<>')
      compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0 ;;
  esac
  if [[ "$prev" == -* ]] && kinds="$(__mq_option_value "$__mq_cmdpath $prev")"; then
    __mq_value "$cur" <<< "$kinds"
  elif [[ "$cur" == -* ]]; then
    __mq_reply "$cur" < <(__mq_options "$__mq_cmdpath")
  elif kinds="$(__mq_subcommands "$__mq_cmdpath")" && [ -n "$kinds" ]; then
    __mq_reply "$cur" <<< "$kinds"
  elif kinds="$(__mq_positional "$__mq_cmdpath $__mq_npos")"; then
    __mq_value "$cur" <<< "$kinds"
  fi
  return 0
}
complete -F _mq mq
`;
}

export function zshScript(tree: Tree): string {
  return `#compdef mq
${HEADER}
# zsh: put this file in a directory on $fpath as _mq (or source it after compinit)
${tables(tree)}
${WALK}
# Offers the lines given (word<TAB>description), each shown with its description.
__mq_add() {
  local -a cands shown
  local line word desc
  for line in "$@"; do
    word="\${line%%$'\\t'*}"
    desc="\${line#*$'\\t'}"
    [[ -z "$word" ]] && continue
    cands+=("$word")
    if [[ "$line" == *$'\\t'* && -n "$desc" ]]; then shown+=("$word  -- $desc"); else shown+=("$word"); fi
  done
  (( \${#cands} )) && compadd -l -d shown -- "\${cands[@]}"
}
__mq_value() {
  local -a lines
  lines=("\${(@f)1}")
  case "$1" in
    @any) ;;
    @profiles) lines=("\${(@f)$(__mq_profiles)}"); __mq_add "\${lines[@]}" ;;
    @file) _files ;;
    @dir) _files -/ ;;
    *) __mq_add "\${lines[@]}" ;;
  esac
}
_mq() {
  local cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}" kinds
  local -a lines
  __mq_walk "\${(@)words[2,CURRENT-1]}"
  if (( CURRENT > 2 )) && [[ "$prev" == -* ]] && kinds="$(__mq_option_value "$__mq_cmdpath $prev")"; then
    __mq_value "$kinds"
  elif [[ "$cur" == -* ]]; then
    lines=("\${(@f)$(__mq_options "$__mq_cmdpath")}")
    __mq_add "\${lines[@]}"
  elif kinds="$(__mq_subcommands "$__mq_cmdpath")" && [[ -n "$kinds" ]]; then
    lines=("\${(@f)kinds}")
    __mq_add "\${lines[@]}"
  elif kinds="$(__mq_positional "$__mq_cmdpath $__mq_npos")"; then
    __mq_value "$kinds"
  fi
  return 0
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  _mq "$@"
else
  compdef _mq mq 2>/dev/null
fi
`;
}

export function fishScript(tree: Tree): string {
  const fq = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const valueOptions: string[] = [];
  for (const n of tree.nodes)
    for (const o of [...n.options, ...tree.globals]) if (takesValue(o)) for (const f of flagsOf(o)) valueOptions.push(`${n.path} ${f}`);
  const lines = [
    HEADER,
    '# fish: copy this file to ~/.config/fish/completions/mq.fish',
    `set -g __mq_value_options ${valueOptions.map(fq).join(' ')}`,
    '# Sets __mq_cmdpath (e.g. "mq queue update") and __mq_npos (positional arguments after it).',
    'function __mq_walk',
    '    set -g __mq_cmdpath mq',
    '    set -g __mq_npos 0',
    '    set -l skip 0',
    '    for w in (commandline -opc)[2..-1]',
    '        if test $skip = 1; set skip 0; continue; end',
    '        switch $w',
    '            case "--*=*"',
    '                continue',
    '            case "-*"',
    '                if contains -- "$__mq_cmdpath $w" $__mq_value_options; set skip 1; end',
    '                continue',
    '        end',
    '        if test $__mq_npos = 0; and contains -- $w (__mq_subs $__mq_cmdpath)',
    '            set -g __mq_cmdpath "$__mq_cmdpath $w"',
    '        else',
    '            set -g __mq_npos (math $__mq_npos + 1)',
    '        end',
    '    end',
    'end',
    'function __mq_at; __mq_walk; test "$__mq_cmdpath" = "$argv[1]"; end',
    'function __mq_arg; __mq_walk; test "$__mq_cmdpath" = "$argv[1]"; and test $__mq_npos -ge $argv[2]; and test $__mq_npos -le $argv[3]; end',
    '# Profile names; anything that is not a valid name is dropped, never evaluated.',
    "function __mq_profiles; command mq profile list -o plain 2>/dev/null | cut -f2 | string match -r -- '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'; end",
    'function __mq_subs',
    '    switch "$argv"',
  ];
  for (const n of tree.nodes)
    if (n.subcommands.length) lines.push(`        case ${fq(n.path)}`, `            printf '%s\\n' ${n.subcommands.map((s) => fq(s.name)).join(' ')}`);
  lines.push('    end', 'end');
  lines.push('complete -c mq -f');
  const valueArgs = (kind: ValueKind): string[] => {
    if ('words' in kind) return ['-x', `-a ${fq(kind.words.map((w) => w.name).join(' '))}`];
    if (kind.special === '@profiles') return ['-x', `-a '(__mq_profiles)'`];
    if (kind.special === '@file') return ['-r', '-F'];
    if (kind.special === '@dir') return ['-x', `-a '(__fish_complete_directories (commandline -ct) directory)'`];
    return ['-x'];
  };
  for (const n of tree.nodes) {
    const cond = `-n ${fq(`__mq_at ${fq(n.path)}`)}`;
    for (const s of n.subcommands) lines.push(`complete -c mq ${cond} -a ${fq(s.name)} -d ${fq(s.summary)}`);
    for (const o of [...n.options, ...tree.globals]) {
      const parts = ['complete -c mq', cond];
      if (o.long) parts.push(`-l ${o.long.slice(2)}`);
      if (o.short) parts.push(`-s ${o.short.slice(1)}`);
      parts.push(`-d ${fq(oneLine(o.description))}`);
      if (takesValue(o)) parts.push(...valueArgs(valueKind(o)));
      lines.push(parts.join(' '));
    }
    n.positionals.forEach((kind, i) => {
      const last = n.variadic && i === n.positionals.length - 1 ? 999 : i;
      const cond2 = `-n ${fq(`__mq_arg ${fq(n.path)} ${i} ${last}`)}`;
      if ('words' in kind) for (const w of kind.words) lines.push(`complete -c mq ${cond2} -a ${fq(w.name)}${w.summary ? ` -d ${fq(w.summary)}` : ''}`);
      else if (kind.special === '@profiles') lines.push(`complete -c mq ${cond2} -a '(__mq_profiles)' -d profile`);
      else if (kind.special === '@file') lines.push(`complete -c mq ${cond2} -F`);
    });
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(shell: Shell, tree: Tree): string {
  return shell === 'bash' ? bashScript(tree) : shell === 'zsh' ? zshScript(tree) : fishScript(tree);
}
