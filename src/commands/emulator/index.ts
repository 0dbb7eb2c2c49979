import { Command, Option } from 'commander';
import { parseChoice, parseIntIn } from '../../cli/args.js';
import type { Context, Deps } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Result } from '../../output/present.js';
import { act, collect, withExamples } from '../shared.js';

interface StartFlags {
  host?: string;
  port: string;
  token?: string;
  clock: string;
  speed: string;
  dataDir?: string;
  seed?: string;
  webhook?: string[];
  webhookSecret?: string[];
  apiKey?: string[];
  rateLimits: string;
  estimates: string;
}

export interface EmulatorStartOptions {
  host: string;
  hostExplicit: boolean;
  port: number;
  token?: string;
  clock: 'real' | 'manual';
  speed: number;
  dataDir?: string;
  seed?: number;
  webhookUrls: string[];
  webhookSecrets: string[];
  apiKeySpecs: string[];
  rateLimits: boolean;
  estimates: boolean;
}

export function emulatorStartOptions(flags: StartFlags, env: NodeJS.ProcessEnv): EmulatorStartOptions {
  const port = parseIntIn(flags.port, '--port', 0, 65535);
  const clock = parseChoice(flags.clock, '--clock', ['real', 'manual'] as const);
  const speed = Number(flags.speed);
  if (!Number.isFinite(speed) || speed <= 0 || speed > 1_000_000)
    throw new UsageError(
      `--speed: "${flags.speed}" must be a number above 0 (1 = real time, 60 = a minute per second)`,
    );
  const rateLimits = parseChoice(flags.rateLimits, '--rate-limits', ['on', 'off'] as const) === 'on';
  const estimates = parseChoice(flags.estimates, '--estimates', ['on', 'off'] as const) === 'on';
  const seed = flags.seed === undefined ? undefined : parseIntIn(flags.seed, '--seed', 0, 2 ** 31 - 1);
  if (flags.token !== undefined && flags.token.length < 8) throw new UsageError('--token: use at least 8 characters');
  const envToken = flags.token === undefined ? env.MQ_EMULATOR_TOKEN || undefined : undefined;
  if (envToken !== undefined && envToken.length < 8) {
    throw new UsageError('MQ_EMULATOR_TOKEN: use at least 8 characters (the same rule as --token)', {
      hints: ['unset MQ_EMULATOR_TOKEN to have a token generated, or set a longer one'],
    });
  }
  return {
    host: flags.host ?? '127.0.0.1',
    hostExplicit: flags.host !== undefined,
    port,
    token: flags.token ?? envToken,
    clock,
    speed,
    dataDir: flags.dataDir,
    seed,
    webhookUrls: flags.webhook ?? [],
    webhookSecrets: flags.webhookSecret ?? [],
    apiKeySpecs: flags.apiKey ?? [],
    rateLimits,
    estimates,
  };
}

export async function runEmulatorStartCommand(opts: EmulatorStartOptions, deps: Deps): Promise<Result> {
  // Stop on Ctrl-C (the deps' signal) and on SIGTERM, answering in-flight requests first.
  const stop = new AbortController();
  const onTerm = () => stop.abort();
  deps.signal.addEventListener('abort', onTerm, { once: true });
  process.once('SIGTERM', onTerm);
  try {
    const { runEmulatorStart } = await import('../../emulator/index.js');
    const exitCode = await runEmulatorStart(
      { ...opts, signal: stop.signal, log: deps.debugEnabled ? (line) => deps.debug(line) : undefined },
      // The emulator's own lines (its address, `export` lines) stream as it starts.
      { stdout: (s) => deps.out.raw(s), stderr: (s) => deps.io.err(s) },
    );
    return { exitCode };
  } finally {
    process.off('SIGTERM', onTerm);
  }
}

export function emulatorCommand(ctx: Context): Command {
  const emulator = new Command('emulator')
    .summary('run a local merge queue service')
    .description(
      'A local emulator of the merge queue service with the same API and queue semantics, for trying mq ' +
        'and rehearsing CI scripts without an account or network.',
    );
  const start = new Command('start')
    .summary('start the emulator and print the variables to use it')
    .description(
      'Start the emulator. The first stdout line is `mq emulator listening on http://HOST:PORT/v1`, ' +
        'followed by `export MQ_API_URL=...`, `export MQ_TOKEN=...` (the v1 token) and ' +
        '`export MQ_V2_API_KEY=...` (a v2 key with every permission) lines a shell can eval. Runs until Ctrl-C or ' +
        'SIGTERM, then answers in-flight requests, saves state and exits 0.',
    )
    .option('--host <host>', 'address to listen on; anything but loopback must be given explicitly', undefined)
    .option('--port <n>', 'port (0 picks a free one)', '0')
    .option('--token <token>', 'the API token clients must send (default: generated; env MQ_EMULATOR_TOKEN)')
    .addOption(
      new Option(
        '--clock <kind>',
        'real: emulator time follows the wall clock; manual: it moves only through the control API',
      )
        .choices(['real', 'manual'])
        .default('real'),
    )
    .option('--speed <x>', 'with --clock real: emulator minutes per real minute', '1')
    .option('--data-dir <dir>', 'keep state in this directory (atomic writes; survives restarts and crashes)')
    .option('--seed <n>', 'seed for generated ids, shas and authors (repeatable runs)')
    .option(
      '--webhook <url>',
      'deliver pull_request.* and pull_request_batch.* events to this URL, signed as Svix signs them (repeatable)',
      collect,
    )
    .option(
      '--webhook-secret <whsec>',
      'signing secret (whsec_ + base64): one for all --webhook URLs or one per URL in order; default: ' +
        'generated and shown on stderr',
      collect,
    )
    .option(
      '--api-key <name=perms>',
      'an extra v2 API key with these permissions (all, none, or ' +
        'merge,priority,skipBatching,direct,settings); its value is shown on stderr (repeatable)',
      collect,
    )
    .addOption(
      new Option('--rate-limits <on|off>', "v2: answer 429 over Trunk's documented request rates")
        .choices(['on', 'off'])
        .default('on'),
    )
    .addOption(
      new Option('--estimates <on|off>', 'v2: queues serve merge estimates (each can be switched in the control API)')
        .choices(['on', 'off'])
        .default('on'),
    )
    .action(
      act(ctx, 'emulator start', (flags: StartFlags) => emulatorStartOptions(flags, ctx.env), runEmulatorStartCommand),
    );
  emulator.addCommand(
    withExamples(start, [
      'mq emulator start --port 8080',
      'mq emulator start > emulator.env &  sleep 1; eval "$(grep ^export emulator.env)"',
      'mq emulator start --clock manual --data-dir .mq-emulator',
      'mq emulator start --speed 60   # an emulated test run of 10 minutes takes 10 seconds',
      'mq emulator start --webhook http://127.0.0.1:9000/hooks --webhook-secret whsec_MNnSz6d4bvxpTDSxKoC7WOnb0yN9u449',
    ]),
  );
  return emulator;
}
