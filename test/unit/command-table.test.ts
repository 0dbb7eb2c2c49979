/**
 * The root program lists the top-level commands from the table in src/commands/table.ts and builds
 * only the commands a command line names. These tests hold that to the full tree: the table says
 * what the built commands say, and help, usage errors and suggestions are byte for byte those of
 * the full tree.
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/table.js';
import { presentError } from '../../src/output/present-error.js';
import { buildProgram, COMMAND_NAMES, commandsNamedIn, entriesOf } from '../../src/program.js';
import { testDeps } from '../helpers/deps.js';

/** What run() does, with the lazily built program or the full tree. */
async function runWith(argv: string[], full: boolean) {
  const { deps, io } = testDeps();
  let exitCode: number;
  const program = await buildProgram(deps, full ? undefined : argv);
  try {
    await program.parseAsync(argv, { from: 'user' });
    exitCode = deps.exitCode;
  } catch (err) {
    exitCode = presentError({ io: deps.io, json: false, debug: false, commandPath: deps.commandPath }, err);
  }
  return {
    exitCode,
    stdout: io.stdout,
    stderr: io.stderr,
    built: program.commands.filter((c) => c.description() !== '').map((c) => c.name()),
  };
}

describe('the command table', () => {
  it('says what the built commands say (name, aliases, summary, help term, subcommands)', async () => {
    const { deps } = testDeps();
    const declared = COMMANDS.map(({ load: _load, wholeTree: _whole, ...entry }) => entry);
    expect(entriesOf(await buildProgram(deps)), 'src/commands/table.ts differs from the commands it builds').toEqual(
      declared,
    );
    expect(COMMANDS.map((e) => e.name)).toEqual(COMMAND_NAMES);
  });

  it.each([
    [['--help']],
    [[]],
    [['-h']],
    [['stauts', '1']],
    [['queu']],
    [['--jsn', 'status']],
    [['--json', 'frobnicate']],
    [['queue', '--help']],
    [['queue']],
    [['queue', 'shw']],
    [['queue', 'show', '--help']],
    [['queue', 'history', '--help']],
    [['queue', 'pauze']],
    [['queue', 'show', '--jsn']],
    [['--branch', 'show', 'queue', 'pause', '--help']],
    [['profile', '--help']],
    [['--repo', 'status', 'wait', '--help']],
    [['help', 'exit-codes']],
    [['help', 'queue', 'update']],
    [['completion', 'fish']],
  ])('%j: the same output and exit code as the full tree', async (argv) => {
    const lazy = await runWith(argv, false);
    const full = await runWith(argv, true);
    expect({ ...lazy, built: undefined }).toEqual({ ...full, built: undefined });
    expect(lazy.stdout + lazy.stderr).not.toBe('');
  });

  it('mq --help builds no command; a command line builds the commands it names', async () => {
    // A stub has a summary only; every real command has a description.
    expect((await runWith(['--help'], true)).built).toEqual(COMMAND_NAMES);
    expect((await runWith(['--help'], false)).built).toEqual([]);
    expect((await runWith(['queue', '--help'], false)).built).toEqual(['queue']);
    // The queue group builds only the subcommands the command line names; the others are stubs.
    const queueOf = async (argv: string[]) => {
      const { deps } = testDeps();
      const queue = (await buildProgram(deps, argv)).commands.find((c) => c.name() === 'queue');
      return queue?.commands.filter((c) => c.description() !== '').map((c) => c.name());
    };
    expect(await queueOf(['queue', '--help'])).toEqual([]);
    expect(await queueOf(['queue', 'show'])).toEqual(['show']);
    const all = COMMANDS.find((c) => c.name === 'queue')?.subcommands?.map((c) => c.name);
    expect(await queueOf(['help', 'queue'])).toEqual(all);
    expect(await queueOf(['completion', 'bash'])).toEqual(all);
    expect(commandsNamedIn(['--repo', 'a/b', 'status', '1'])).toEqual(new Set(['status']));
    expect(commandsNamedIn(['--help'])).toEqual(new Set());
    expect(commandsNamedIn(['help', 'queue'])).toEqual(new Set(COMMAND_NAMES));
    expect(commandsNamedIn(['completion', 'bash'])).toEqual(new Set(COMMAND_NAMES));
  });
});
