// `mq webhooks verify`: one delivery (raw body + svix headers) checked against the secret(s).
import type { Deps } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { plainKeys } from '../../output/plain.js';
import type { Result } from '../../output/present.js';
import { own, paints, v } from '../../output/render.js';
import { InputTooLarge } from '../../util/limited-read.js';
import { DEFAULT_MAX_BODY_BYTES, verifyDelivery, type VerifyResult } from '../../webhooks/signature.js';
import { FAILURE_HINTS, loadSecrets, noSecret, prsText, readInput, type SecretSource } from './common.js';

export interface VerifyOptions {
  /** File of the raw body; undefined or `-`: standard input. */
  body?: string;
  headersFile?: string;
  id?: string;
  timestamp?: string;
  signature?: string;
  secret?: SecretSource;
}

const HEADERS_FILE_LIMIT = 64 * 1024;

export const VERIFY_PLAIN = plainKeys('when valid', ['result', 'type', 'prs', 'id', 'timestamp'] as const);

/** A headers file: a JSON object, or `name: value` lines (a request line or blank lines skipped). */
export function parseHeadersFile(text: string, path: string): Record<string, string> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      throw new UsageError(`--headers: "${path}" starts with { but is not JSON`);
    }
    const out: Record<string, string> = {};
    for (const [k, val] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof val === 'string' || typeof val === 'number') out[k.toLowerCase()] = String(val);
    }
    return out;
  }
  const out: Record<string, string> = {};
  for (const [i, line] of trimmed.split(/\r?\n/).entries()) {
    if (line.trim() === '' || /^(?:[A-Z]+ \S+ HTTP\/|HTTP\/)/.test(line)) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) {
      throw new UsageError(`--headers: line ${i + 1} of "${path}" is not "name: value"`, {
        hints: ['e.g. svix-id: msg_…, svix-timestamp: 1767225600, svix-signature: v1,…, one per line, or JSON'],
      });
    }
    out[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return out;
}

async function readBody(opts: VerifyOptions, deps: Deps): Promise<string | Buffer | undefined> {
  // One byte over the limit is enough to refuse it as too large.
  const limit = DEFAULT_MAX_BODY_BYTES + 1;
  if (opts.body !== undefined && opts.body !== '-') {
    try {
      return await readInput(deps, opts.body, '--body', limit);
    } catch (err) {
      if (err instanceof UsageError && /over the limit/.test(err.why)) return undefined;
      throw err;
    }
  }
  if (deps.io.stdinIsTTY) {
    throw new UsageError('no body: pass --body FILE or pipe the raw body in', {
      hints: ['e.g. mq webhooks verify --headers headers.txt < body.json'],
    });
  }
  try {
    return await deps.io.readStdin(limit);
  } catch (err) {
    if (err instanceof InputTooLarge) return undefined;
    throw err;
  }
}

export async function runVerify(opts: VerifyOptions, deps: Deps): Promise<Result> {
  const loaded = await loadSecrets(deps, opts.secret, false);
  if (!loaded) throw noSecret();
  const headers =
    opts.headersFile === undefined
      ? {}
      : parseHeadersFile(
          (await readInput(deps, opts.headersFile, '--headers', HEADERS_FILE_LIMIT)).toString('utf8'),
          opts.headersFile,
        );
  if (opts.id !== undefined) headers['svix-id'] = opts.id;
  if (opts.timestamp !== undefined) headers['svix-timestamp'] = opts.timestamp;
  if (opts.signature !== undefined) headers['svix-signature'] = opts.signature;
  const body = await readBody(opts, deps);
  const result: VerifyResult =
    body === undefined
      ? { ok: false, reason: 'too-large', message: `the body is over the limit of ${DEFAULT_MAX_BODY_BYTES} bytes` }
      : verifyDelivery(body, headers, loaded.secrets, { now: () => deps.clock.now() });
  if (!result.ok) {
    deps.out.note([own(paints.red, 'mq: webhooks verify: invalid:'), ` ${result.reason}: `, v(result.message)]);
    deps.out.note(`hint: ${FAILURE_HINTS[result.reason]}`);
    return { data: result, exitCode: ExitCode.auth };
  }
  const { event } = result;
  const doc = { ok: true, id: result.id, timestamp: result.timestamp, type: event.type, event };
  const at = new Date(result.timestamp * 1000).toISOString();
  return {
    data: doc,
    view: {
      table: [
        {
          lines: [
            [
              own(paints.green, '✓ valid'),
              ' ',
              v(event.type || '(no type)'),
              prsText(event, false) ? ' ' : '',
              v(prsText(event, false)),
            ],
            [own(paints.dim, `  ${result.id}, signed ${at}`)],
          ],
        },
      ],
      plain: [
        {
          fields: [
            VERIFY_PLAIN.field('result', 'Result', 'valid'),
            VERIFY_PLAIN.field('type', 'Type', event.type),
            VERIFY_PLAIN.field('prs', 'PRs', prsText(event, true)),
            VERIFY_PLAIN.field('id', 'svix-id', result.id),
            VERIFY_PLAIN.field('timestamp', 'Timestamp', at),
          ],
        },
      ],
    },
    exitCode: 0,
  };
}
