import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

interface Described {
  path: string;
  options: Array<{ long?: string; short?: string; choices?: string[] }>;
  commands: Described[];
}

function flatten(cmds: Described[]): Described[] {
  return cmds.flatMap((c) => [c, ...flatten(c.commands)]);
}

describe('mq help --json', async () => {
  const r = await runCli(['help', '--json']);
  const doc = JSON.parse(r.stdout) as {
    commands: Described[];
    exitCodes: Array<{ code: number }>;
    environment: Array<{ name: string }>;
    globalOptions: Described['options'];
  };
  const all = flatten(doc.commands);

  it('lists exit codes and environment variables', () => {
    expect(r.exitCode).toBe(0);
    expect(doc.exitCodes.map((e) => e.code)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 130]);
    expect(doc.environment.map((e) => e.name)).toContain('MQ_TOKEN');
    expect(doc.globalOptions.find((o) => o.long === '--output')?.choices).toEqual([
      'table',
      'plain',
      'json',
      'markdown',
      'raw',
    ]);
  });

  it('agrees with every command’s --help: the same options and subcommands', async () => {
    expect(all.length).toBeGreaterThan(8);
    for (const cmd of all) {
      const args = cmd.path.split(' ').slice(1);
      const help = await runCli([...args, '--help']);
      expect(help.exitCode, cmd.path).toBe(0);
      for (const o of cmd.options) expect(help.stdout, `${cmd.path} ${o.long}`).toContain(o.long ?? o.short ?? '');
      const subcommands = cmd.commands.map((c) => c.path.split(' ').at(-1));
      const commandsSection = help.stdout.split('Commands:')[1] ?? '';
      for (const s of subcommands) expect(commandsSection, `${cmd.path} lists ${s}`).toContain(`  ${s}`);
    }
  });

  it('every command’s help has at least one example', async () => {
    for (const cmd of all) {
      if (cmd.commands.length > 0) continue;
      const help = await runCli([...cmd.path.split(' ').slice(1), '--help']);
      expect(help.stdout, cmd.path).toMatch(/Examples:\n {2}\$ mq /);
    }
  });
});

describe('help topics', () => {
  it('mq help exit-codes prints the table', async () => {
    const r = await runCli(['help', 'exit-codes']);
    expect(r.exitCode).toBe(0);
    for (const line of [
      '  0  ok',
      '  2  usage',
      '  7  config',
      '  9  left-queue',
      ' 11  threshold',
      '130  interrupted',
    ])
      expect(r.stdout).toContain(line);
  });

  it('mq help environment prints the variables', async () => {
    const r = await runCli(['help', 'environment']);
    expect(r.stdout).toContain('MQ_TOKEN');
    expect(r.stdout).toContain('NO_PROXY');
  });

  it('mq help <command> shows that command', async () => {
    const r = await runCli(['help', 'submit']);
    expect(r.stdout).toContain('Usage: mq submit');
  });

  it('mq help <unknown> is a usage error', async () => {
    const r = await runCli(['help', 'nothing-here']);
    expect(r.exitCode).toBe(2);
  });

  it('mq --version prints the package version', async () => {
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default;
    const r = await runCli(['--version']);
    expect(r.stdout).toBe(`${version}\n`);
  });

  it('mq --version --json prints one JSON document, still without loading the CLI bundle', async () => {
    const { name, version } = (await import('../../package.json', { with: { type: 'json' } })).default;
    const { copyFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { execa } = await import('execa');
    const { BIN, tempDir } = await import('../helpers/run-cli.js');
    const expected = { name, version, node: process.versions.node, platform: process.platform, arch: process.arch };
    const r = await runCli(['--version', '--json']);
    expect([r.exitCode, JSON.parse(r.stdout)]).toEqual([0, expected]);
    // dist/main.cjs alone, without cli.cjs beside it: the answer cannot have come from the CLI bundle.
    const alone = join(tempDir('mq-main-alone-'), 'main.cjs');
    copyFileSync(join(BIN, '..', '..', 'dist', 'main.cjs'), alone);
    for (const args of [['--version'], ['-o', 'json', '-V']]) {
      const a = await execa(process.execPath, [alone, ...args], { reject: false });
      expect(a.exitCode).toBe(0);
      expect(a.stdout).toBe(args.length === 1 ? version : JSON.stringify(expected, null, 2));
    }
  });
});

describe('a closed pipe', () => {
  it('stops quietly when the reader goes away (mq … | head)', async () => {
    const { execa } = await import('execa');
    const { BIN } = await import('../helpers/run-cli.js');
    const r = await execa(
      'bash',
      ['-c', `"${process.execPath}" "${BIN}" help --json | (exit 0); echo "exit=\${PIPESTATUS[0]}"`],
      { reject: false },
    );
    expect(r.stdout.trim()).toBe('exit=0');
    expect(r.stderr).not.toContain('EPIPE');
  });
});
