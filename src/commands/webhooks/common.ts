// What the webhooks commands share: the secret(s), input files, and one delivery as a line.
import { resolve } from 'node:path';
import type { Deps } from '../../context.js';
import { UsageError } from '../../errors.js';
import { plainColumns } from '../../output/plain.js';
import { type Cell, type Line, own, paints, type Row, v } from '../../output/render.js';
import { InputTooLarge, limitText, readFileBytesLimited } from '../../util/limited-read.js';
import { eventPrs, type WebhookEvent } from '../../webhooks/events.js';
import { secretProblem, type VerifyFailure } from '../../webhooks/signature.js';

export const SECRET_ENV = 'MQ_WEBHOOK_SECRET';
const SECRET_FILE_LIMIT = 64 * 1024;

export interface SecretFlags {
  secretFile?: string;
  secret?: string;
}

/** Where the secrets come from: a file, the argv flag (warned about), or the environment. */
export type SecretSource = { file: string } | { flag: string } | { env: true };

export function secretSource(f: SecretFlags): SecretSource | undefined {
  if (f.secretFile !== undefined && f.secret !== undefined) {
    throw new UsageError('--secret-file and --secret: give one or the other, not both');
  }
  if (f.secretFile !== undefined) return { file: f.secretFile };
  if (f.secret !== undefined) return { flag: f.secret };
  return undefined;
}

/** A file's bytes, bounded; a missing or unreadable file is a usage error naming the flag. */
export async function readInput(deps: Pick<Deps, 'cwd'>, path: string, flag: string, limit: number): Promise<Buffer> {
  try {
    return await readFileBytesLimited(resolve(deps.cwd, path), limit);
  } catch (err) {
    if (err instanceof InputTooLarge)
      throw new UsageError(`${flag}: "${path}" is over the limit of ${limitText(limit)}`);
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new UsageError(`${flag}: cannot read "${path}" (${code})`);
  }
}

/**
 * The secrets, comma or newline separated, from --secret-file, --secret or MQ_WEBHOOK_SECRET; each one
 * is redacted from output. `check`: a malformed one is a usage error (verify reports it as a result).
 */
export async function loadSecrets(
  deps: Pick<Deps, 'cwd' | 'env' | 'io' | 'out'>,
  source: SecretSource | undefined,
  check: boolean,
): Promise<{ secrets: string[]; from: string } | undefined> {
  let text: string;
  let from: string;
  if (source && 'file' in source) {
    text = (await readInput(deps, source.file, '--secret-file', SECRET_FILE_LIMIT)).toString('utf8');
    from = '--secret-file';
  } else if (source && 'flag' in source) {
    text = source.flag;
    from = '--secret';
    deps.out.note([
      own(paints.yellow, 'mq: warning:'),
      ` --secret puts the secret in argv, visible to other users of this machine; use ${SECRET_ENV} or --secret-file`,
    ]);
  } else {
    const env = deps.env[SECRET_ENV];
    if (env === undefined || env.trim() === '') return undefined;
    text = env;
    from = SECRET_ENV;
  }
  const secrets = text
    .split(/[,\r\n]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const s of secrets) deps.io.addSecret(s);
  if (secrets.length === 0) throw new UsageError(`${from}: no secret in it`, { hints: [SECRET_HINT] });
  if (check) {
    for (const [i, s] of secrets.entries()) {
      const problem = secretProblem(s);
      const which = secrets.length > 1 ? ` (secret ${i + 1})` : '';
      if (problem !== undefined) throw new UsageError(`${from}${which}: ${problem}`, { hints: [SECRET_HINT] });
    }
  }
  return { secrets, from };
}

export const SECRET_HINT = `the endpoint's signing secret (whsec_…) from the Trunk app, in ${SECRET_ENV} or a file`;

export function noSecret(): UsageError {
  return new UsageError(`no webhook secret: set ${SECRET_ENV} or pass --secret-file FILE`, {
    hints: [`e.g. ${SECRET_ENV}="$(cat secret.txt)" mq …`, SECRET_HINT],
  });
}

/** What to do about each verification failure. */
export const FAILURE_HINTS: Record<VerifyFailure, string> = {
  'secret-format': SECRET_HINT,
  'missing-header': 'pass --id, --timestamp and --signature, or --headers FILE with the svix-* headers',
  'bad-timestamp': 'svix-timestamp is unix seconds, as sent',
  'timestamp-too-old':
    'deliveries older than 5 minutes are refused (replays); `mq webhooks replay` re-signs recordings',
  'timestamp-in-future': "check this machine's clock",
  'bad-signature': 'verify the raw body bytes as received (not re-serialised JSON) with the endpoint secret',
  'too-large': 'a webhook body is at most 1 MiB',
  'not-json': 'the signature matches: the sender signed a body that is not JSON',
};

/** PR numbers as a list for people (`#3 #4`) or scripts (`3,4`). */
export const prsText = (e: WebhookEvent | undefined, plain: boolean): string =>
  e === undefined
    ? ''
    : eventPrs(e)
        .map((n) => (plain ? String(n) : `#${n}`))
        .join(plain ? ',' : ' ');

/** One delivery, as `listen` and `replay` print it. */
export const DELIVERY_PLAIN = plainColumns('one line per delivery', [
  'at',
  'id',
  'type',
  'prs',
  'status',
  'result',
  'forward',
] as const);

export interface DeliveryLine {
  at: string;
  id: string;
  type: string;
  prs: string;
  /** HTTP status answered (listen) or received (replay). */
  status: number | null;
  result: string;
  /** The forward target's status, or the error that kept it from answering. */
  forward?: string;
}

const good = (ok: boolean): Cell['paint'] => (ok ? paints.green : paints.red);

/** One delivery piped: raw values. */
export function deliveryRow(d: DeliveryLine): Row {
  return DELIVERY_PLAIN.row({
    at: d.at,
    id: d.id,
    type: d.type,
    prs: d.prs,
    status: d.status === null ? '' : String(d.status),
    result: d.result,
    forward: d.forward ?? '',
  });
}

/** Column widths of a delivery line on a terminal (time, status, result, type, PRs; then id and forward). */
const WIDTHS = [8, 6, 20, 32, 10] as const;
const pad = (text: string, i: number) => text.padEnd(WIDTHS[i] as number);

export const DELIVERY_HEADER: Line = own(
  paints.dim,
  `${['time', 'status', 'result', 'type', 'PRs'].map(pad).join(' ')} svix-id  forward`,
);

/** One delivery as an aligned line on a terminal (a boxed table per delivery would not stream). */
export function deliveryLine(d: DeliveryLine): Line {
  const ok = d.status !== null && d.status >= 200 && d.status < 300;
  return [
    v(pad(d.at.slice(11, 19), 0)),
    ' ',
    v(pad(d.status === null ? '-' : String(d.status), 1), good(ok)),
    ' ',
    v(pad(d.result, 2), d.result === 'valid' || d.result === 'sent' ? undefined : paints.yellow),
    ' ',
    v(pad(d.type, 3)),
    ' ',
    v(pad(d.prs, 4)),
    ' ',
    v(d.id),
    d.forward ? `  → ${d.forward}` : '',
  ];
}
