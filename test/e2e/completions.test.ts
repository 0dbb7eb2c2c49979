import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
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
      expect(readFileSync(file(shell), 'utf8'), `completions/mq.${shell} is stale: run npm run completions`).toBe(r.stdout);
    });
  }
  it('an unknown shell is a usage error', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.exitCode).toBe(2);
  });
});

/** A PATH with `mq` on it (completion of profile names runs it) and a config with two profiles. */
async function shellEnv(): Promise<Record<string, string | undefined>> {
  const bin = tempDir('mq-bin-');
  writeFileSync(join(bin, 'mq'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'mq'), 0o755);
  const env = { ...baseEnv(), PATH: `${bin}:${process.env.PATH}` };
  for (const name of ['alpha', 'bravo']) {
    await runCli(['--profile', name, '--api-url', 'https://mq.example.com/v1', 'auth', 'login', '--with-token'], { env, input: 'tok_completion_test\n' });
  }
  return env;
}

async function complete(shell: string, words: string[], env: Record<string, string | undefined>): Promise<string[]> {
  const line = words.join(' ');
  let cmd: string[];
  if (shell === 'bash') {
    const arr = words.map((w) => `'${w}'`).join(' ');
    cmd = ['bash', '--norc', '--noprofile', '-c', `source '${file('bash')}'; COMP_WORDS=(${arr}); COMP_CWORD=${words.length - 1}; _mq; printf '%s\\n' "\${COMPREPLY[@]}"`];
  } else if (shell === 'zsh') {
    const arr = words.map((w) => `'${w}'`).join(' ');
    // compadd is ZLE's; stand in for it by printing the candidates it is given.
    cmd = ['zsh', '-f', '-c', `compadd() { while [[ $# -gt 0 && "$1" != "--" ]]; do shift; done; shift; print -l -- "$@"; }; compdef() { :; }; source '${file('zsh')}'; words=(${arr}); CURRENT=${words.length}; _mq`];
  } else {
    cmd = ['fish', '--no-config', '-c', `source '${file('fish')}'; complete -C '${line}'`];
  }
  const r = await execa(cmd[0] as string, cmd.slice(1), { env, extendEnv: false, reject: false });
  expect(r.stderr).toBe('');
  const prefix = words.at(-1) ?? '';
  return String(r.stdout)
    .split('\n')
    .map((l) => l.split('\t')[0] as string)
    .filter((l) => l !== '' && l.startsWith(prefix));
}

describe.each(['bash', 'zsh', 'fish'])('completion in real %s', async (shell) => {
  const env = await shellEnv();
  it('mq qu -> queue', async () => {
    expect(await complete(shell, ['mq', 'qu'], env)).toEqual(['queue']);
  });
  it('mq queue up -> update', async () => {
    expect(await complete(shell, ['mq', 'queue', 'up'], env)).toEqual(['update']);
  });
  it('mq queue update --mode <TAB> -> single parallel', async () => {
    expect((await complete(shell, ['mq', 'queue', 'update', '--mode', ''], env)).sort()).toEqual(['parallel', 'single']);
  });
  it('mq submit --pri -> --priority', async () => {
    expect(await complete(shell, ['mq', 'submit', '--pri'], env)).toEqual(['--priority']);
  });
  it('mq --profile <TAB> -> profile names read at completion time', async () => {
    expect((await complete(shell, ['mq', '--profile', ''], env)).sort()).toEqual(['alpha', 'bravo']);
  });
});
