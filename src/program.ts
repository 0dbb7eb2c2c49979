/**
 * The root commander program: global options, the command groups, and the settings every
 * command shares (errors thrown instead of exiting, our own error output, suggestions).
 *
 * Start-up: only the commands a command line can run are imported and built. The root knows every
 * top-level command from the table in src/commands/table.ts (name, aliases, summary, help term, and
 * how to build it), so `mq --help` and unknown-command suggestions need no command module; a
 * command whose name (or alias) is an argument is built. `help` and `completion` describe the
 * whole tree, so they load every command.
 */
import { Command, Help, Option } from 'commander';
import { COMMANDS, type CommandEntry } from './commands/table.js';
import { refuseFlagConflicts } from './cli/args.js';
import { STUB_TERMS, stubOf } from './cli/stubs.js';
import { refuseUnsupportedFormat } from './cli/formats.js';
import { VERSION, type Context } from './context.js';
import { API_CHOICES } from './config/api-choice.js';
import { FORMATS } from './output/render.js';

/** Groups that build only the subcommands a command line names (src/cli/stubs.ts addSubcommands). */
const GROUPS_WITH_STUBS = new Set(COMMANDS.filter((c) => c.subcommands).map((c) => c.name));

/** The top-level commands in program order. */
export const COMMAND_NAMES: readonly string[] = COMMANDS.map((c) => c.name);

/**
 * Builds the program for `argv`: every command whose name or alias is one of the arguments is
 * loaded (a superset of the one commander will dispatch to), the others stand in as stubs that
 * only show in the root's help and suggestions. Without `argv`, the whole tree is built.
 */
export async function buildProgram(ctx: Context, argv?: readonly string[]): Promise<Command> {
  const program = rootProgram(ctx);
  const wanted = argv === undefined ? new Set(COMMAND_NAMES) : commandsNamedIn(argv);
  // Commands that read the whole tree (help, completion) get every group whole, too.
  const groupArgv = argv === undefined || wanted.size === COMMAND_NAMES.length ? undefined : argv;
  const load = (entry: (typeof COMMANDS)[number]) =>
    entry.load({ ctx, program: () => program, argv: groupArgv, entry });
  const built = await Promise.all(COMMANDS.map((entry) => (wanted.has(entry.name) ? load(entry) : stubOf(entry))));
  for (const command of built) program.addCommand(command);
  applyShared(program, ctx);
  return program;
}

/** The names of the commands `argv` may run; all of them when one of those reads the whole tree. */
export function commandsNamedIn(argv: readonly string[]): Set<string> {
  const args = new Set(argv);
  const named = COMMANDS.filter((e) => args.has(e.name) || e.aliases.some((a) => args.has(a)));
  return new Set(named.some((e) => e.wholeTree) ? COMMAND_NAMES : named.map((e) => e.name));
}

function rootProgram(ctx: Context): Command {
  const program = new Command('mq')
    .description('Operate merge queues from a terminal or CI: submit, cancel and watch PRs, and administer queues.')
    .version(VERSION, '-V, --version', 'print the version')
    .option('--json', 'print exactly one JSON document on stdout')
    .addOption(
      new Option('-o, --output <format>', 'output format (default: table on a terminal, plain when piped)').choices(
        FORMATS,
      ),
    )
    .option('--profile <name>', 'profile to use (env MQ_PROFILE)')
    .option('--api-url <url>', 'service base URL: ending in /v1 for v1, the origin for v2 (env MQ_API_URL)')
    .addOption(
      new Option('--api <version>', 'API version: v1, v2 or auto (env MQ_API; default auto: by key and URL)').choices(
        API_CHOICES,
      ),
    )
    .option('-R, --repo <[host/]owner/name>', 'repository (env MQ_REPO; default: git remote origin)')
    .option('-B, --branch <name>', 'target branch of the queue (env MQ_BRANCH; default: origin HEAD)')
    .option(
      '--timeout <duration>',
      'per-request timeout (env MQ_TIMEOUT, default 30s); for waits, how long to wait (default 2h)',
    )
    .option('--debug', 'log requests and responses to stderr, token redacted (env MQ_DEBUG=1)')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--insecure-http', 'allow plain http:// to a non-loopback host')
    .helpCommand(false)
    .hook('preAction', (_program, action) => {
      ctx.setOptions(program.opts());
      refuseUnsupportedFormat(action, ctx.options);
    });
  return program;
}

/** Settings every command in the tree needs; addCommand does not copy them from the parent. */
function applyShared(cmd: Command, ctx: Context): void {
  refuseFlagConflicts(cmd);
  const hasStubs = cmd.commands.some((sub) => STUB_TERMS.has(sub));
  cmd
    .exitOverride()
    // Remember which command is being parsed, so a usage error can point at its --help.
    .hook('preSubcommand', (_parent, sub) => {
      const names: string[] = [];
      for (let c: Command | null = sub; c; c = c.parent) names.unshift(c.name());
      ctx.commandPath = names.join(' ');
    })
    .showSuggestionAfterError(true)
    .configureHelp(
      hasStubs
        ? {
            showGlobalOptions: true,
            // A stub's term (name, [options], arguments) comes from the command table.
            subcommandTerm(this: Help, sub: Command) {
              return STUB_TERMS.get(sub) ?? Help.prototype.subcommandTerm.call(this, sub);
            },
          }
        : { showGlobalOptions: true },
    )
    .configureOutput({
      writeOut: (s) => ctx.io.out(s),
      writeErr: (s) => ctx.io.err(s),
      outputError: () => undefined,
      // As commander decides them, from what the IO knows: asking process.stdout would make the
      // stream that output to a file or pipe does without (output/fd-write.ts).
      // (undefined, as commander's own answer off a terminal: it then wraps at 80.)
      getOutHelpWidth: () => (ctx.io.stdoutIsTTY ? process.stdout.columns : undefined) as number,
      getErrHelpWidth: () => (ctx.io.stderrIsTTY ? process.stderr.columns : undefined) as number,
      getOutHasColors: () => ctx.io.color,
      getErrHasColors: () => ctx.io.colorErr,
    });
  for (const sub of cmd.commands) if (!STUB_TERMS.has(sub)) applyShared(sub, ctx);
}

/** What the table says of each command of a fully built program (test/unit/command-table.test.ts). */
export function entriesOf(program: Command): CommandEntry[] {
  const help = new Help();
  return program.commands.map((c) => {
    const entry: CommandEntry = {
      name: c.name(),
      aliases: c.aliases(),
      summary: help.subcommandDescription(c),
      term: help.subcommandTerm(c),
    };
    if (c.helpGroup()) entry.helpGroup = c.helpGroup();
    // A group's subcommands, for the groups that build only the subcommand a command line names.
    if (GROUPS_WITH_STUBS.has(c.name())) entry.subcommands = entriesOf(c);
    return entry;
  });
}
