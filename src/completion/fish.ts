/** The fish completion script: `complete` lines per command path, with a walk over the typed words. */
import { flagsOf, HEADER, oneLine, takesValue, type Tree, type ValueKind, valueKind } from './tree.js';

export function fishScript(tree: Tree): string {
  const fq = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const valueOptions: string[] = [];
  for (const n of tree.nodes)
    for (const o of [...n.options, ...tree.globals])
      if (takesValue(o)) for (const f of flagsOf(o)) valueOptions.push(`${n.path} ${f}`);
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
    'function __mq_arg; __mq_walk; test "$__mq_cmdpath" = "$argv[1]"; and test $__mq_npos -ge $argv[2]; ' +
      'and test $__mq_npos -le $argv[3]; end',
    '# Profile names; anything that is not a valid name is dropped, never evaluated.',
    'function __mq_profiles; command mq profile list -o plain 2>/dev/null | cut -f2 | string match -r -- ' +
      "'^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'; end",
    'function __mq_subs',
    '    switch "$argv"',
  ];
  for (const n of tree.nodes)
    if (n.subcommands.length)
      lines.push(
        `        case ${fq(n.path)}`,
        `            printf '%s\\n' ${n.subcommands.map((s) => fq(s.name)).join(' ')}`,
      );
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
      if ('words' in kind)
        for (const w of kind.words)
          lines.push(`complete -c mq ${cond2} -a ${fq(w.name)}${w.summary ? ` -d ${fq(w.summary)}` : ''}`);
      else if (kind.special === '@profiles') lines.push(`complete -c mq ${cond2} -a '(__mq_profiles)' -d profile`);
      else if (kind.special === '@file') lines.push(`complete -c mq ${cond2} -F`);
    });
  }
  return `${lines.join('\n')}\n`;
}
