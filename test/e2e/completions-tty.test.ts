/**
 * The completion scripts as a person meets them: an interactive bash, zsh or fish in tmux, the
 * script installed the documented way, Tab pressed, the screen read back. (completions.test.ts
 * covers every case by calling the completion functions; this shows the real widgets list them.)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baseEnv, BIN, runCli, tempDir } from '../helpers/run-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const missing = ['tmux', 'zsh', 'fish'].filter((t) => !has(t));
if (missing.length)
  console.warn(
    `completions-tty: ${missing.join(', ')} not installed; the interactive shell tests that need them are skipped`,
  );

const sessions: Array<() => void> = [];
afterEach(() => {
  for (const kill of sessions.splice(0)) kill();
});

/** A home with `mq` on PATH, two profiles (or `profiles`), and the completion script installed for `shell`. */
async function home(
  shell: string,
  profiles?: Record<string, unknown>,
): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = tempDir('mq-tty-home-');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'mq'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'mq'), 0o755);
  const base = baseEnv();
  const env: Record<string, string> = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: dir,
    TERM: 'xterm',
    NO_COLOR: '1',
    MQ_CONFIG_DIR: base.MQ_CONFIG_DIR as string,
  };
  if (profiles) writeFileSync(join(env.MQ_CONFIG_DIR as string, 'config.json'), JSON.stringify({ profiles }));
  else
    for (const name of ['alpha', 'bravo'])
      await runCli(['--profile', name, 'auth', 'login', '--with-token'], { env, input: 'tok_tty_completion_1\n' });
  if (shell === 'bash')
    writeFileSync(join(dir, '.bashrc'), `PS1='$ '\nsource '${join(ROOT, 'completions/mq.bash')}'\n`);
  if (shell === 'zsh') {
    mkdirSync(join(dir, 'zfunc'));
    copyFileSync(join(ROOT, 'completions/mq.zsh'), join(dir, 'zfunc', '_mq'));
    writeFileSync(
      join(dir, '.zshrc'),
      `fpath=('${join(dir, 'zfunc')}' $fpath)\nautoload -U compinit && compinit -u\nPS1='%% '\n`,
    );
    env.ZDOTDIR = dir;
  }
  if (shell === 'fish') {
    mkdirSync(join(dir, '.config', 'fish', 'completions'), { recursive: true });
    copyFileSync(join(ROOT, 'completions/mq.fish'), join(dir, '.config', 'fish', 'completions', 'mq.fish'));
    env.XDG_CONFIG_HOME = join(dir, '.config');
  }
  return { dir, env };
}

/** An interactive shell in a private tmux server. */
function terminal(shell: string, env: Record<string, string>) {
  const rc = `'${join(env.HOME as string, '.bashrc')}'`;
  const socket = `mq-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const argv = shell === 'bash' ? `bash --noprofile --rcfile ${rc} -i` : shell === 'zsh' ? 'zsh -i' : 'fish -i';
  const envArgs = Object.entries(env).map(([k, v]) => `${k}='${v.replace(/'/g, `'\\''`)}'`);
  tmux('new-session', '-d', '-x', '160', '-y', '40', `env -i ${envArgs.join(' ')} ${argv}`);
  sessions.push(() => spawnSync('tmux', ['-L', socket, 'kill-server']));
  const screen = () => tmux('capture-pane', '-p');
  return {
    keys: (...keys: string[]) => void tmux('send-keys', ...keys),
    /** The screen once `want` shows on it (or after 10 s, for the assertion to report). */
    async until(want: RegExp): Promise<string> {
      for (let i = 0; i < 100; i++) {
        const s = screen();
        if (want.test(s)) return s;
        await new Promise((r) => setTimeout(r, 100));
      }
      return screen();
    },
  };
}

describe.skipIf(!has('tmux'))('completion in an interactive shell', () => {
  it('bash lists profile names after `profile use` and flag values after --mode', async () => {
    const { env } = await home('bash');
    const t = terminal('bash', env);
    await t.until(/^\$/m);
    t.keys('mq profile use ', 'Tab', 'Tab');
    expect(await t.until(/alpha\s+bravo/)).toMatch(/alpha\s+bravo/);
    t.keys('C-u', 'mq queue update --mode ', 'Tab', 'Tab');
    expect(await t.until(/parallel\s+single/)).toMatch(/parallel\s+single/);
  });

  it.skipIf(!has('zsh'))('zsh shows subcommands and flags with their descriptions', async () => {
    const { env } = await home('zsh');
    const t = terminal('zsh', env);
    await t.until(/^%/m);
    t.keys('mq queue ', 'Tab');
    expect(await t.until(/update +-- change queue settings/)).toMatch(/update +-- change queue settings/);
    t.keys('C-u', 'mq --profile ', 'Tab');
    expect(await t.until(/alpha\s+bravo/)).toMatch(/alpha\s+bravo/);
  });

  it.skipIf(!has('fish'))('fish shows subcommands with their descriptions', async () => {
    const { env } = await home('fish');
    const t = terminal('fish', env);
    await t.until(/[>#]$/m);
    t.keys('mq queue ', 'Tab');
    expect(await t.until(/update\s+\(change queue settings\)/)).toMatch(/update\s+\(change queue settings\)/);
  });

  it.skipIf(!has('zsh') || !has('fish'))('hostile names in the config are never run, in any shell', async () => {
    const marker = join(tempDir('mq-tty-hostile-'), 'pwned');
    const profiles = {
      [`$(touch ${marker})`]: {},
      [`\`touch ${marker}\``]: {},
      [`(touch ${marker})`]: {},
      [`;touch ${marker}`]: {},
      'ok-name': {},
    };
    for (const shell of ['bash', 'zsh', 'fish']) {
      const { env } = await home(shell, profiles);
      const t = terminal(shell, env);
      await t.until(shell === 'bash' ? /^\$/m : shell === 'zsh' ? /^%/m : /[>#]$/m);
      t.keys('mq --profile ', 'Tab');
      expect(await t.until(/ok-name/)).toContain('mq --profile ok-name');
    }
    expect(existsSync(marker)).toBe(false);
  });
});
