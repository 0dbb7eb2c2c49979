// `mq webhooks replay DIR --to URL`: recorded deliveries sent again in order, re-signed now.
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Deps } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import type { Result } from '../../output/present.js';
import { decodeWebhookEvent, eventPrs, type WebhookEvent } from '../../webhooks/events.js';
import { post } from '../../webhooks/post.js';
import { DEFAULT_MAX_BODY_BYTES, secretKey, signature } from '../../webhooks/signature.js';
import {
  DELIVERY_HEADER,
  deliveryLine,
  deliveryRow,
  loadSecrets,
  noSecret,
  prsText,
  readInput,
  type SecretSource,
} from './common.js';

export interface ReplayOptions {
  dir: string;
  to: string;
  newIds: boolean;
  secret?: SecretSource;
}

const TIMEOUT_MS = 10_000;
/** The most recordings one replay reads. */
const MAX_FILES = 10_000;

interface Recording {
  file: string;
  id: string;
  headers: Record<string, string>;
  body: Buffer;
  event?: WebhookEvent;
}

function parseRecording(file: string, text: string): Recording {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new UsageError(`${file}: not a recording of mq webhooks listen (not JSON)`);
  }
  const body =
    typeof doc.body === 'string'
      ? Buffer.from(doc.body, 'utf8')
      : typeof doc.bodyBase64 === 'string'
        ? Buffer.from(doc.bodyBase64, 'base64')
        : undefined;
  const headers =
    typeof doc.headers === 'object' && doc.headers !== null ? (doc.headers as Record<string, unknown>) : {};
  if (body === undefined || typeof doc.id !== 'string') {
    throw new UsageError(`${file}: not a recording of mq webhooks listen (no id or body)`);
  }
  const kept: Record<string, string> = {};
  for (const name of ['content-type', 'user-agent']) if (typeof headers[name] === 'string') kept[name] = headers[name];
  let event: WebhookEvent | undefined;
  try {
    event = decodeWebhookEvent(JSON.parse(body.toString('utf8')));
  } catch {
    event = undefined;
  }
  return { file, id: doc.id, headers: kept, body, event };
}

export async function runReplay(opts: ReplayOptions, deps: Deps): Promise<Result> {
  const loaded = await loadSecrets(deps, opts.secret, true);
  if (!loaded) throw noSecret();
  const dir = resolve(deps.cwd, opts.dir);
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch (err) {
    throw new UsageError(`${opts.dir}: cannot read the directory (${(err as NodeJS.ErrnoException).code})`);
  }
  if (names.length === 0)
    throw new UsageError(`${opts.dir}: no recordings (*.json) in it`, {
      hints: ['record with mq webhooks listen --record DIR'],
    });
  if (names.length > MAX_FILES)
    throw new UsageError(`${opts.dir}: over ${MAX_FILES} recordings; replay a smaller directory`);
  const recordings: Recording[] = [];
  for (const n of names) {
    const bytes = await readInput(deps, join(dir, n), opts.dir, DEFAULT_MAX_BODY_BYTES * 2);
    recordings.push(parseRecording(n, bytes.toString('utf8')));
  }
  const key = secretKey(loaded.secrets[0] as string);
  let failed = 0;
  if (deps.out.format() === 'table') await deps.out.stream(null, { table: [{ lines: [DELIVERY_HEADER] }] });
  for (const r of recordings) {
    if (deps.signal.aborted) break;
    const id = opts.newIds ? `msg_${randomBytes(12).toString('base64url')}` : r.id;
    const timestamp = Math.floor(deps.clock.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      ...r.headers,
      'svix-id': id,
      'svix-timestamp': String(timestamp),
      'svix-signature': signature(key, id, timestamp, r.body),
    };
    let status: number | null = null;
    let error: string | undefined;
    try {
      status = await post(opts.to, r.body, headers, TIMEOUT_MS, deps.signal);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      error = e.code ?? e.message;
    }
    const ok = status !== null && status >= 200 && status < 300;
    if (!ok) failed++;
    const at = new Date(deps.clock.now()).toISOString();
    const line = { at, id, type: r.event?.type ?? '', status, result: error ?? (ok ? 'sent' : 'refused') };
    const prs = r.event ? eventPrs(r.event) : [];
    const doc = { at, file: r.file, id, type: line.type || null, prs, status, ...(error ? { error } : {}) };
    await deps.out.stream(doc, {
      table: [{ lines: [deliveryLine({ ...line, prs: prsText(r.event, false) })] }],
      plain: [{ headers: [], rows: [deliveryRow({ ...line, prs: prsText(r.event, true) })] }],
    });
  }
  if (failed > 0) {
    deps.out.note(`mq: webhooks replay: ${failed} of ${recordings.length} deliveries were not accepted (not 2xx)`);
  }
  return { exitCode: failed > 0 ? ExitCode.rejected : 0 };
}
