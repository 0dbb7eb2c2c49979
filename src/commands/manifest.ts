/**
 * The top-level commands as the root program shows them without loading them (see program.ts).
 * Generated from the full command tree by `npm run completions` (scripts/manifest.mjs): do not edit.
 */
export interface CommandEntry {
  name: string;
  aliases: string[];
  /** What the root's help lists: the summary, else the description. */
  summary: string;
  /** The root's help term: name, first alias, [options], arguments. */
  term: string;
  helpGroup?: string;
  /** A group's subcommands (for the groups that build only the one a command line names). */
  subcommands?: CommandEntry[];
}

export const COMMAND_MANIFEST: readonly CommandEntry[] = [
  {
    name: 'submit',
    aliases: [],
    summary: 'submit PRs to the merge queue',
    term: 'submit [options] [pr...]',
  },
  {
    name: 'cancel',
    aliases: [],
    summary: 'remove PRs from the merge queue',
    term: 'cancel [options] [pr...]',
  },
  {
    name: 'restart',
    aliases: [],
    summary: 're-run the tests of a PR in the queue',
    term: 'restart [options] [pr]',
  },
  {
    name: 'status',
    aliases: [],
    summary: "show a PR's state and story in the merge queue",
    term: 'status [prs...]',
  },
  {
    name: 'wait',
    aliases: [],
    summary: 'wait until a PR merges or leaves the queue',
    term: 'wait [options] [pr]',
  },
  {
    name: 'targets',
    aliases: [],
    summary: 'upload the impacted targets of a PR (parallel queues)',
    term: 'targets [options] [pr]',
  },
  {
    name: 'queue',
    aliases: [],
    summary: 'inspect and administer the merge queue of a branch',
    term: 'queue',
    subcommands: [
      {
        name: 'show',
        aliases: [],
        summary: 'show the queue: state, settings and enqueued PRs',
        term: 'show [options]',
      },
      {
        name: 'watch',
        aliases: [],
        summary: 'follow the queue live',
        term: 'watch [options]',
      },
      {
        name: 'history',
        aliases: [],
        summary: 'list PRs that went through the queue',
        term: 'history [options]',
      },
      {
        name: 'stats',
        aliases: [],
        summary: "the queue's health over a window: time to merge, throughput, CI cost, flakiness",
        term: 'stats [options]',
      },
      {
        name: 'testing',
        aliases: [],
        summary: 'show a queue test run: status, tested PRs and checks',
        term: 'testing <test-run>',
      },
      {
        name: 'pause',
        aliases: [],
        summary: 'pause the queue: nothing is tested or merged',
        term: 'pause [options]',
      },
      {
        name: 'resume',
        aliases: [],
        summary: 'resume a paused or draining queue',
        term: 'resume [options]',
      },
      {
        name: 'drain',
        aliases: [],
        summary: 'drain the queue: finish the PRs in it, admit no new ones',
        term: 'drain [options]',
      },
      {
        name: 'update',
        aliases: [],
        summary: 'change queue settings',
        term: 'update [options]',
      },
      {
        name: 'create',
        aliases: [],
        summary: 'create a merge queue for the target branch',
        term: 'create [options]',
      },
      {
        name: 'delete',
        aliases: [],
        summary: 'delete the queue of the target branch (it must be empty)',
        term: 'delete [options]',
      },
      {
        name: 'simulate',
        aliases: [],
        summary: 'predict what queue settings will do, on a simulated workload',
        term: 'simulate [options]',
      },
    ],
  },
  {
    name: 'metrics',
    aliases: [],
    summary: 'show the merge queue metrics (Prometheus)',
    term: 'metrics [options]',
  },
  {
    name: 'emulator',
    aliases: [],
    summary: 'run a local merge queue service',
    term: 'emulator',
  },
  {
    name: 'demo',
    aliases: [],
    summary: 'watch a merge queue at work on a local emulator',
    term: 'demo [options]',
  },
  {
    name: 'auth',
    aliases: [],
    summary: 'log in, check and log out',
    term: 'auth',
  },
  {
    name: 'profile',
    aliases: [],
    summary: 'manage named profiles',
    term: 'profile',
  },
  {
    name: 'completion',
    aliases: [],
    summary: 'print the shell completion script for bash, zsh or fish',
    term: 'completion <shell>',
  },
  {
    name: 'help',
    aliases: [],
    summary: 'help on a command or topic (exit-codes, environment)',
    term: 'help [topic...]',
  },
];
