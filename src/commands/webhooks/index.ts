import { Command } from 'commander';
import { parseIntIn } from '../../cli/args.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { WebhookEvent } from '../../webhooks/events.js';
import { checkWebhookUrl } from '../../webhooks/post.js';
import type { SinkFlags } from '../../notify/targets.js';
import { notifyOnEvent, sinkOptions, withSinkOptions } from '../notify.js';
import { act, withExamples, withPlainHelp } from '../shared.js';
import { DELIVERY_PLAIN, SECRET_ENV, type SecretFlags, secretSource } from './common.js';
import { type ListenOptions, runListen } from './listen.js';
import { type ReplayOptions, runReplay } from './replay.js';
import { runVerify, VERIFY_PLAIN, type VerifyOptions } from './verify.js';

const SECRET_HELP =
  `The secret (whsec_…, the endpoint's signing secret) is read from ${SECRET_ENV} or --secret-file; ` +
  'several, comma or newline separated, are each tried (a rotation).';

function withSecretFlags(cmd: Command): Command {
  return cmd
    .option('--secret-file <file>', `file holding the secret(s) (default: env ${SECRET_ENV})`)
    .option('--secret <whsec>', 'the secret itself (visible to other users in argv: prefer the file or env)');
}

function url(text: string, flag: string): string {
  try {
    return checkWebhookUrl(text);
  } catch (err) {
    throw new UsageError(`${flag}: ${(err as Error).message}`, { hints: [`e.g. ${flag} http://127.0.0.1:3000/hooks`] });
  }
}

interface VerifyFlags extends SecretFlags {
  body?: string;
  headers?: string;
  id?: string;
  timestamp?: string;
  signature?: string;
}

interface ListenFlags extends SecretFlags, SinkFlags {
  port: string;
  host: string;
  forward?: string;
  record?: string;
  verify: boolean;
  notify?: boolean;
  on: string;
}

const SINK_FLAGS = ['slack', 'teams', 'github', 'webhook', 'slackUrlFile', 'teamsUrlFile', 'webhookUrlFile'] as const;

interface ReplayFlags extends SecretFlags {
  to: string;
  newIds?: boolean;
}

export function webhooksCommand(ctx: Context): Command {
  const webhooks = new Command('webhooks')
    .summary('verify, receive and replay the merge queue webhooks')
    .description(
      "Work with the merge queue's webhooks (delivered by Svix): check a delivery's signature, run a local " +
        'receiver that verifies, prints, forwards and records deliveries, and replay recordings to a handler.',
    );
  const verify = withSecretFlags(
    new Command('verify')
      .summary("check one delivery's signature and print its event")
      .description(
        'Verify one delivery: the raw body (--body FILE, or standard input) as received, byte for byte, and its ' +
          'svix-id, svix-timestamp and svix-signature headers (as flags, or --headers FILE of "name: value" ' +
          'lines or a JSON object). The timestamp must be within 5 minutes of now. Exit 0 when valid (the ' +
          'event type and PRs are printed), 4 when not (the reason on stderr). ' +
          SECRET_HELP,
      )
      .option('--body <file>', 'the raw body (default: standard input)')
      .option('--headers <file>', 'the headers: "name: value" lines or a JSON object')
      .option('--id <svix-id>', 'the svix-id header')
      .option('--timestamp <seconds>', 'the svix-timestamp header')
      .option('--signature <sig>', 'the svix-signature header (v1,<base64> entries, space separated)'),
  ).action(
    act(
      ctx,
      'webhooks verify',
      (f: VerifyFlags): VerifyOptions => ({
        body: f.body,
        headersFile: f.headers,
        id: f.id,
        timestamp: f.timestamp,
        signature: f.signature,
        secret: secretSource(f),
      }),
      runVerify,
    ),
  );
  withPlainHelp(verify, [VERIFY_PLAIN]);
  webhooks.addCommand(
    withExamples(verify, [
      'mq webhooks verify --body body.json --headers headers.txt',
      'mq webhooks verify --id msg_2x --timestamp 1767225600 --signature v1,K5… < body.json',
    ]),
  );
  const listen = withSecretFlags(
    new Command('listen')
      .summary('receive deliveries locally: verify, print, forward and record them')
      .description(
        'An HTTP receiver (127.0.0.1 by default) for webhook deliveries. Each one is read raw (at most 1 MiB, ' +
          'else 413), verified (401 with the reason when invalid, 200 when valid) and printed as a line: ' +
          'aligned on a terminal, tab-separated piped, JSON Lines with --json. A valid delivery is forwarded ' +
          'unchanged (body ' +
          'bytes and svix headers) to --forward, and recorded in --record DIR as <time>-<svix-id>.json (0600). ' +
          'A delivery whose svix-id was already accepted is answered 200 and shown as a duplicate, not ' +
          'processed again. The first stdout line is `mq webhooks listening on URL` ({"listening":URL} with ' +
          '--json). Runs until Ctrl-C or SIGTERM. ' +
          SECRET_HELP +
          ' Without a secret it refuses to start, unless --no-verify.',
      )
      .option('--port <n>', 'port (0 picks a free one)', '0')
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .option('--forward <url>', 'send each valid delivery on to this local handler')
      .option('--record <dir>', 'save each valid delivery in this directory (for mq webhooks replay)')
      .option('--no-verify', 'accept deliveries without verifying them (testing only; loudly reported)')
      .option('--notify', 'post each PR that leaves the queue, as mq notify does (its target flags below)'),
  );
  withSinkOptions(listen).action(
    act(
      ctx,
      'webhooks listen',
      (f: ListenFlags): ListenOptions & { notify?: ReturnType<typeof sinkOptions> } => {
        const stray = SINK_FLAGS.find((k) => f[k] !== undefined);
        if (!f.notify && stray)
          throw new UsageError(`--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: only with --notify`);
        return {
          host: f.host,
          port: parseIntIn(f.port, '--port', 0, 65535),
          forward: f.forward === undefined ? undefined : url(f.forward, '--forward'),
          record: f.record,
          noVerify: f.verify === false,
          secret: secretSource(f),
          ...(f.notify ? { notify: sinkOptions(f) } : {}),
        };
      },
      async (o, deps) => {
        if (!o.notify) return runListen(o, deps);
        const post = await notifyOnEvent(deps, o.notify);
        const onEvent = (e: WebhookEvent) => post(e.type, e.family === 'pull_request' ? e.pr_number : undefined);
        return runListen(o, deps, { onEvent });
      },
    ),
  );
  withPlainHelp(listen, [DELIVERY_PLAIN], '  The first line is `mq webhooks listening on URL`.');
  webhooks.addCommand(
    withExamples(listen, [
      'mq webhooks listen --port 8787 --forward http://127.0.0.1:3000/hooks --record ./deliveries',
      'mq webhooks listen --json | jq -c "select(.result != \\"valid\\")"',
    ]),
  );
  const replay = withSecretFlags(
    new Command('replay')
      .argument('<dir>', 'a directory of recordings (mq webhooks listen --record)')
      .summary('re-send recorded deliveries to a handler, re-signed')
      .description(
        'Send the deliveries recorded in DIR again, in the order received, to --to: the same body bytes, ' +
          'signed again with the (first) secret and a fresh timestamp, with the same svix-id unless --new-ids. ' +
          'Each is printed with the status the receiver answered; exit 5 if any answer is not 2xx. ' +
          SECRET_HELP,
      )
      .requiredOption('--to <url>', 'the handler to send them to')
      .option('--new-ids', 'give each delivery a new svix-id (else a receiver sees duplicates)'),
  ).action(
    act(
      ctx,
      'webhooks replay',
      (dir: string, f: ReplayFlags): ReplayOptions => ({
        dir,
        to: url(f.to, '--to'),
        newIds: f.newIds === true,
        secret: secretSource(f),
      }),
      runReplay,
    ),
  );
  withPlainHelp(replay, [DELIVERY_PLAIN]);
  webhooks.addCommand(withExamples(replay, ['mq webhooks replay ./deliveries --to http://127.0.0.1:3000/hooks']));
  return webhooks;
}
