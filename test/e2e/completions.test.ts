import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { baseEnv, BIN, runCli, tempDir } from '../helpers/run-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const file = (shell: string) => join(ROOT, 'completions', `mq.${shell}`);

describe('completions/ is what the generator produces', () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    it(shell, async () => {
      const r = await runCli(['completion', shell]);
      expect(r.exitCode).toBe(0);
      expect(readFileSync(file(shell), 'utf8'), `completions/mq.${shell} is stale: run npm run completions`).toBe(
        r.stdout,
      );
    });
  }
  it('no script evaluates words it reads (no compgen -W, no eval)', () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const text = readFileSync(file(shell), 'utf8');
      expect(text).not.toMatch(/compgen\s+-W/);
      expect(text).not.toMatch(/\beval\b/);
    }
  });
  it('an unknown shell is a usage error', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.exitCode).toBe(2);
  });
});

/** A directory with `mq` (running the built CLI, or `stub` when given) on its PATH, and a config. */
async function shellEnv(
  options: { stub?: string; config?: unknown } = {},
): Promise<Record<string, string | undefined>> {
  const bin = tempDir('mq-bin-');
  writeFileSync(join(bin, 'mq'), options.stub ?? `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'mq'), 0o755);
  const env: Record<string, string | undefined> = { ...baseEnv(), PATH: `${bin}:${process.env.PATH}` };
  if (options.config !== undefined)
    writeFileSync(join(env.MQ_CONFIG_DIR as string, 'config.json'), JSON.stringify(options.config));
  else {
    for (const name of ['alpha', 'bravo']) {
      await runCli(['--profile', name, '--api-url', 'https://mq.example.com/v1', 'auth', 'login', '--with-token'], {
        env,
        input: 'tok_completion_test\n',
      });
    }
  }
  return env;
}

/** The working directory of the shells: one file and one directory to complete. */
const cwd = tempDir('mq-complete-cwd-');
writeFileSync(join(cwd, 'targets.txt'), 'a\n');
mkdirSync(join(cwd, 'state-dir'));

/**
 * What the shell offers for `words` (the last one being completed), as `word` or, where the
 * shell shows one, `word<TAB>description`. zsh's compadd and _files only work inside the
 * completion widget: stand-ins print what they are given (words with their shown descriptions).
 */
async function complete(shell: string, words: string[], env: Record<string, string | undefined>): Promise<string[]> {
  const line = words.join(' ');
  const arr = words.map((w) => `'${w}'`).join(' ');
  let cmd: string[];
  if (shell === 'bash') {
    cmd = [
      'bash',
      '--norc',
      '--noprofile',
      '-c',
      `source '${file('bash')}'; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _mq; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ];
  } else if (shell === 'zsh') {
    const stubs = [
      'compadd() { local d=""; while [[ $# -gt 0 && "$1" != "--" ]]; do if [[ "$1" == -d ]]; then d="$2"; shift; fi; shift; done; shift; local i=1 w; for w in "$@"; do if [[ -n "$d" && "${${(P)d}[i]}" != "$w" ]]; then print -r -- "$w"$\'\\t\'"${${(P)d}[i]#$w  -- }"; else print -r -- "$w"; fi; i=$((i+1)); done; }',
      '_files() { print -r -- "@files${1:+ $1}"; }',
      'compdef() { :; }',
    ].join('; ');
    cmd = ['zsh', '-f', '-c', `${stubs}; source '${file('zsh')}'; words=(${arr}); CURRENT=${words.length}; _mq`];
  } else {
    cmd = ['fish', '--no-config', '-c', `source '${file('fish')}'; complete -C '${line}'`];
  }
  const r = await execa(cmd[0] as string, cmd.slice(1), { env, extendEnv: false, reject: false, cwd });
  expect(r.stderr).toBe('');
  const prefix = words.at(-1) ?? '';
  return String(r.stdout)
    .split('\n')
    .filter((l) => l !== '' && (l.startsWith(prefix) || l.startsWith('@files')));
}

/** The words offered, without descriptions, sorted. */
const names = (lines: string[]) => lines.map((l) => l.split('\t')[0] as string).sort();

describe.each(['bash', 'zsh', 'fish'])('completion in real %s', async (shell) => {
  const env = await shellEnv();
  const offered = async (...words: string[]) => names(await complete(shell, words, env));

  it('commands and subcommands', async () => {
    expect(await offered('mq', 'qu')).toEqual(['queue']);
    expect(await offered('mq', 'queue', 'up')).toEqual(['update']);
    expect(await offered('mq', 'profile', 'r')).toEqual(['remove', 'rm']);
  });

  it('flags of the command being typed', async () => {
    expect(await offered('mq', 'submit', '--pri')).toEqual(['--priority']);
    expect(await offered('mq', 'queue', 'history', '--st')).toEqual(['--state']);
  });

  it('the values of every choice flag', async () => {
    expect(await offered('mq', 'queue', 'update', '--mode', '')).toEqual(['parallel', 'single']);
    expect(await offered('mq', 'submit', '42', '--priority', '')).toEqual(['high', 'low', 'medium', 'urgent']);
    expect(await offered('mq', 'submit', '-p', 'u')).toEqual(['urgent']);
    expect(await offered('mq', 'status', '1', '-o', '')).toEqual(['json', 'markdown', 'plain', 'raw', 'table']);
    expect(await offered('mq', 'queue', 'history', '--state', 'p')).toEqual(['pending', 'pending_failure']);
    expect(await offered('mq', 'queue', 'update', '--merge-method', '')).toEqual(['merge_commit', 'rebase', 'squash']);
    expect(await offered('mq', 'emulator', 'start', '--clock', '')).toEqual(['manual', 'real']);
  });

  it('profile names after --profile and after profile use, show and rm, read at completion time', async () => {
    expect(await offered('mq', '--profile', '')).toEqual(['alpha', 'bravo']);
    expect(await offered('mq', 'status', '1', '--profile', 'b')).toEqual(['bravo']);
    for (const sub of ['use', 'show', 'rm', 'remove'])
      expect(await offered('mq', 'profile', sub, '')).toEqual(['alpha', 'bravo']);
    expect(await offered('mq', 'profile', 'use', 'alpha', '')).toEqual([]);
  });

  it('completion <shell>, help <topic>, profile set <key>', async () => {
    expect(await offered('mq', 'completion', '')).toEqual(['bash', 'fish', 'zsh']);
    const topics = await offered('mq', 'help', '');
    expect(topics).toEqual(expect.arrayContaining(['environment', 'exit-codes', 'queue', 'submit']));
    expect(await offered('mq', 'help', 'ex')).toEqual(['exit-codes']);
    expect(await offered('mq', 'profile', 'set', '')).toEqual(['api', 'api-url', 'branch', 'repo']);
  });

  it('file names after --file, directories after --data-dir', async () => {
    const files = await offered('mq', 'targets', '1', '--sha', 'abc', '--file', '');
    const dirs = await offered('mq', 'emulator', 'start', '--data-dir', '');
    if (shell === 'zsh') {
      expect(files).toEqual(['@files']);
      expect(dirs).toEqual(['@files -/']);
    } else {
      expect(files).toEqual(expect.arrayContaining(['targets.txt']));
      expect(dirs.map((d) => d.replace(/\/$/, ''))).toEqual(['state-dir']);
    }
  });

  it.skipIf(shell === 'zsh')('file names after --with-token <', async () => {
    expect(await offered('mq', 'auth', 'login', '--with-token', '<', 'tar')).toEqual(['targets.txt']);
  });

  it.skipIf(shell === 'bash')('descriptions of subcommands and flags', async () => {
    const queue = await complete(shell, ['mq', 'qu'], env);
    expect(queue).toEqual([expect.stringMatching(/^queue\t\S.+/)]);
    const update = await complete(shell, ['mq', 'queue', 'upd'], env);
    expect(update[0]).toMatch(/^update\t.*setting/i);
    const priority = await complete(shell, ['mq', 'submit', '--pri'], env);
    expect(priority).toEqual([expect.stringMatching(/^--priority\turgent, high, medium, low/)]);
  });
});

describe.each(['bash', 'zsh', 'fish'])('hostile profile names in real %s', async (shell) => {
  const marker = join(tempDir('mq-hostile-'), 'pwned');
  const hostileNames = [
    `$(touch ${marker})`,
    `\`touch ${marker}\``,
    `(touch ${marker})`,
    `;touch ${marker}`,
    `a'b`,
    '*',
    '-rf',
    'x y',
  ];

  it('are never evaluated: the config file holds them', async () => {
    const profiles = Object.fromEntries([...hostileNames, 'ok-name'].map((n) => [n, { token: 'tok_hostile_1234' }]));
    const env = await shellEnv({ config: { profiles } });
    expect(names(await complete(shell, ['mq', '--profile', ''], env))).toEqual(['ok-name']);
    expect(names(await complete(shell, ['mq', 'profile', 'use', ''], env))).toEqual(['ok-name']);
    expect(existsSync(marker)).toBe(false);
  });

  it('are never evaluated: even an mq that prints them is not trusted', async () => {
    const printed = [...hostileNames, 'ok-name'].map((n) => `${n}`.replace(/'/g, `'"'"'`));
    const stub = `#!/bin/sh\nfor n in ${printed.map((n) => `'${n}'`).join(' ')}; do printf '\\t%s\\tx\\n' "$n"; done\n`;
    const env = await shellEnv({ stub, config: { profiles: {} } });
    expect(names(await complete(shell, ['mq', '--profile', ''], env))).toEqual(['ok-name']);
    expect(names(await complete(shell, ['mq', 'profile', 'rm', ''], env))).toEqual(['ok-name']);
    expect(existsSync(marker)).toBe(false);
  });
});
