/**
 * The root commander program: global options, the command groups, and the settings every
 * command shares (errors thrown instead of exiting, our own error output, suggestions).
 */
import { Command, Option } from 'commander';
import { refuseFlagConflicts } from './cli/args.js';
import { refuseUnsupportedFormat } from './cli/formats.js';
import { authCommand } from './commands/auth/index.js';
import { cancelCommand } from './commands/cancel.js';
import { completionCommand } from './commands/completion.js';
import { demoCommand } from './commands/demo.js';
import { emulatorCommand } from './commands/emulator/index.js';
import { helpCommand } from './commands/help.js';
import { metricsCommand } from './commands/metrics.js';
import { queueCommand } from './commands/queue/index.js';
import { profileCommand } from './commands/profile/index.js';
import { restartCommand } from './commands/restart.js';
import { statusCommand } from './commands/status.js';
import { submitCommand } from './commands/submit.js';
import { targetsCommand } from './commands/targets.js';
import { waitCommand } from './commands/wait.js';
import { VERSION, type Context } from './context.js';
import { FORMATS } from './output/render.js';

export function buildProgram(ctx: Context): Command {
  const program = new Command('mq')
    .description('Operate merge queues from a terminal or CI: submit, cancel and watch PRs, and administer queues.')
    .version(VERSION, '-V, --version', 'print the version')
    .option('--json', 'print exactly one JSON document on stdout')
    .addOption(new Option('-o, --output <format>', 'output format (default: table on a terminal, plain when piped)').choices(FORMATS))
    .option('--profile <name>', 'profile to use (env MQ_PROFILE)')
    .option('--api-url <url>', 'service base URL ending in /v1 (env MQ_API_URL)')
    .option('-R, --repo <[host/]owner/name>', 'repository (env MQ_REPO; default: git remote origin)')
    .option('-B, --branch <name>', 'target branch of the queue (env MQ_BRANCH; default: origin HEAD)')
    .option('--timeout <duration>', 'per-request timeout (env MQ_TIMEOUT, default 30s); for waits, how long to wait (default 2h)')
    .option('--debug', 'log requests and responses to stderr, token redacted (env MQ_DEBUG=1)')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--insecure-http', 'allow plain http:// to a non-loopback host')
    .helpCommand(false)
    .hook('preAction', (_program, action) => {
      ctx.setOptions(program.opts());
      refuseUnsupportedFormat(action, ctx.options);
    });

  const commands = [
    submitCommand(ctx),
    cancelCommand(ctx),
    restartCommand(ctx),
    statusCommand(ctx),
    waitCommand(ctx),
    targetsCommand(ctx),
    queueCommand(ctx),
    metricsCommand(ctx),
    emulatorCommand(ctx),
    demoCommand(ctx),
    authCommand(ctx),
    profileCommand(ctx),
    completionCommand(ctx, () => program),
    helpCommand(ctx, () => program),
  ];
  for (const c of commands) program.addCommand(c);
  applyShared(program, ctx);
  return program;
}

/** Settings every command in the tree needs; addCommand does not copy them from the parent. */
function applyShared(cmd: Command, ctx: Context): void {
  refuseFlagConflicts(cmd);
  cmd
    .exitOverride()
    // Remember which command is being parsed, so a usage error can point at its --help.
    .hook('preSubcommand', (_parent, sub) => {
      const names: string[] = [];
      for (let c: Command | null = sub; c; c = c.parent) names.unshift(c.name());
      ctx.commandPath = names.join(' ');
    })
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (s) => ctx.io.out(s),
      writeErr: (s) => ctx.io.err(s),
      outputError: () => undefined,
    });
  for (const sub of cmd.commands) applyShared(sub, ctx);
}
