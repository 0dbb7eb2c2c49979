// The bash and zsh completion scripts: case-table data, the word walk, each shell's function.
import { flagsOf, HEADER, oneLine, takesValue, type Tree, type ValueKind, valueKind } from './tree.js';

/** Lines a table function prints for a kind: `@special`, or `word<TAB>description`. */
function kindLines(kind: ValueKind): string[] {
  return 'special' in kind ? [kind.special] : kind.words.map((w) => `${w.name}\t${w.summary}`);
}

/** A single-quoted shell word (bash and zsh). */
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The data as shell functions printing `word<TAB>description` or @profiles @file @dir @any. */
function tables(tree: Tree): string {
  const lines: string[] = [];
  const printLines = (ls: string[]) => `printf '%s\\n' ${ls.map(q).join(' ')}`;
  lines.push('__mq_subcommands() {', '  case "$1" in');
  for (const n of tree.nodes)
    if (n.subcommands.length)
      lines.push(`    ${q(n.path)}) ${printLines(n.subcommands.map((s) => `${s.name}\t${s.summary}`))} ;;`);
  lines.push('  esac', '}');
  lines.push('__mq_options() {', '  case "$1" in');
  for (const n of tree.nodes) {
    const opts = [...n.options, ...tree.globals].flatMap((o) =>
      flagsOf(o).map((f) => `${f}\t${oneLine(o.description)}`),
    );
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

// Sets __mq_cmdpath ("mq queue update") and __mq_npos; never name a variable `path` (zsh ties it to $PATH).
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
