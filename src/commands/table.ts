/**
 * The top-level commands, declared once: what the root's help and "did you mean" show without
 * loading a command (name, aliases, summary, help term), and how each is built. The root program
 * (src/program.ts) reads it; help and completions read the tree it builds; the build needs no list
 * (each loader's import is code esbuild follows). test/unit/command-table.test.ts holds it to the
 * built commands.
 */
import type { Command } from 'commander';
import type { CommandEntry } from '../cli/stubs.js';
import type { Context } from '../context.js';

export type { CommandEntry };

/** `argv`: the command line, for a group that builds only the subcommands it names; undefined: all. */
export interface LoadArgs {
  ctx: Context;
  program: () => Command;
  argv: readonly string[] | undefined;
  entry: CommandEntry;
}

export interface CommandSpec extends CommandEntry {
  load: (a: LoadArgs) => Promise<Command>;
  /** It reads the whole tree (help --json, completion scripts): running it builds every command. */
  wholeTree?: boolean;
}

/** A subcommand's entry; `args`: what its help term shows after the name. */
const sub = (name: string, summary: string, args = ' [options]'): CommandEntry => {
  return { name, aliases: [], summary, term: `${name}${args}` };
};

/** In the order `mq --help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'submit',
    aliases: [],
    summary: 'submit PRs to the merge queue',
    term: 'submit [options] [pr...]',
    load: async ({ ctx }) => (await import('./submit.js')).submitCommand(ctx),
  },
  {
    name: 'cancel',
    aliases: [],
    summary: 'remove PRs from the merge queue',
    term: 'cancel [options] [pr...]',
    load: async ({ ctx }) => (await import('./cancel.js')).cancelCommand(ctx),
  },
  {
    name: 'restart',
    aliases: [],
    summary: 're-run the tests of a PR in the queue',
    term: 'restart [options] [pr]',
    load: async ({ ctx }) => (await import('./restart.js')).restartCommand(ctx),
  },
  {
    name: 'priority',
    aliases: [],
    summary: "change a queued PR's priority or batching",
    term: 'priority [options] <pr> [priority]',
    load: async ({ ctx }) => (await import('./priority.js')).priorityCommand(ctx),
  },
  {
    name: 'status',
    aliases: [],
    summary: "show a PR's state and story in the merge queue",
    term: 'status [options] [prs...]',
    load: async ({ ctx }) => (await import('./status.js')).statusCommand(ctx),
  },
  {
    name: 'wait',
    aliases: [],
    summary: 'wait until a PR merges or leaves the queue',
    term: 'wait [options] [pr]',
    load: async ({ ctx }) => (await import('./wait.js')).waitCommand(ctx),
  },
  {
    name: 'notify',
    aliases: [],
    summary: 'post a message when a PR leaves the queue (Slack, Teams, GitHub comment, webhook)',
    term: 'notify [options] [pr]',
    load: async ({ ctx }) => (await import('./notify.js')).notifyCommand(ctx),
  },
  {
    name: 'targets',
    aliases: [],
    summary: 'upload the impacted targets of a PR (parallel queues)',
    term: 'targets [options] [pr]',
    load: async ({ ctx }) => (await import('./targets.js')).targetsCommand(ctx),
  },
  {
    name: 'queue',
    aliases: [],
    summary: 'inspect and administer the merge queue of a branch',
    term: 'queue',
    subcommands: [
      sub('show', 'show the queue: state, settings and enqueued PRs'),
      sub('order', 'show the dispatch order: runs under test, waiting PRs and what holds them', ''),
      sub('graph', 'show which PRs build on which in a parallel queue'),
      sub('watch', 'follow the queue live'),
      sub('history', 'list PRs that went through the queue'),
      sub('stats', "the queue's health over a window: time to merge, throughput, CI cost, flakiness"),
      sub('testing', 'show a queue test run: status, tested PRs and checks', ' <test-run>'),
      sub('pause', 'pause the queue: nothing is tested or merged'),
      sub('resume', 'resume a paused or draining queue'),
      sub('drain', 'drain the queue: finish the PRs in it, admit no new ones'),
      sub('update', 'change queue settings'),
      sub('create', 'create a merge queue for the target branch'),
      sub('delete', 'delete the queue of the target branch (it must be empty)'),
      sub('simulate', 'predict what queue settings will do, on a simulated workload'),
      sub('eta-check', "backtest mq's merge-time estimate on the queue's history: calibration and error"),
    ],
    load: async ({ ctx, argv, entry }) => (await import('./queue/index.js')).queueCommand(ctx, argv, entry.subcommands),
  },
  {
    name: 'metrics',
    aliases: [],
    summary: 'show the merge queue metrics (Prometheus)',
    term: 'metrics [options]',
    load: async ({ ctx }) => (await import('./metrics.js')).metricsCommand(ctx),
  },
  {
    name: 'webhooks',
    aliases: [],
    summary: 'verify, receive and replay the merge queue webhooks',
    term: 'webhooks',
    load: async ({ ctx }) => (await import('./webhooks/index.js')).webhooksCommand(ctx),
  },
  {
    name: 'emulator',
    aliases: [],
    summary: 'run a local merge queue service',
    term: 'emulator',
    load: async ({ ctx }) => (await import('./emulator/index.js')).emulatorCommand(ctx),
  },
  {
    name: 'demo',
    aliases: [],
    summary: 'watch a merge queue at work on a local emulator',
    term: 'demo [options]',
    load: async ({ ctx }) => (await import('./demo.js')).demoCommand(ctx),
  },
  {
    name: 'auth',
    aliases: [],
    summary: 'log in, check and log out',
    term: 'auth',
    load: async ({ ctx }) => (await import('./auth/index.js')).authCommand(ctx),
  },
  {
    name: 'profile',
    aliases: [],
    summary: 'manage named profiles',
    term: 'profile',
    load: async ({ ctx }) => (await import('./profile/index.js')).profileCommand(ctx),
  },
  {
    name: 'completion',
    aliases: [],
    summary: 'print the shell completion script for bash, zsh or fish',
    term: 'completion <shell>',
    wholeTree: true,
    load: async ({ ctx, program }) => (await import('./completion.js')).completionCommand(ctx, program),
  },
  {
    name: 'help',
    aliases: [],
    summary: 'help on a command or topic (exit-codes, environment)',
    term: 'help [topic...]',
    wholeTree: true,
    load: async ({ ctx, program }) => (await import('./help.js')).helpCommand(ctx, program),
  },
];
