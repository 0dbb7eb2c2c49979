// `mq webhooks listen`: a local receiver printing each delivery; it may forward, record, and (through
// `ListenHooks`) act on each accepted event.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Deps } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Result } from '../../output/present.js';
import { own, paints, v } from '../../output/render.js';
import { eventPrs, type WebhookEvent } from '../../webhooks/events.js';
import { post } from '../../webhooks/post.js';
import {
  DELIVERY_HEADER,
  deliveryLine,
  deliveryRow,
  loadSecrets,
  noSecret,
  prsText,
  type DeliveryLine,
  type SecretSource,
} from './common.js';
import { type ReceivedDelivery, startReceiver } from './receiver.js';

export interface ListenOptions {
  host: string;
  port: number;
  forward?: string;
  record?: string;
  noVerify: boolean;
  secret?: SecretSource;
}

/** What a later feature (`--notify`) plugs in: called once per accepted (verified, new) event, in order. */
export interface ListenHooks {
  onEvent?: (event: WebhookEvent, delivery: ReceivedDelivery) => Promise<void> | void;
}

const FORWARD_TIMEOUT_MS = 10_000;

/** A recording's name: time (sortable, unique per listener) and the svix-id made safe for a file name. */
function recordName(at: number, id: string): string {
  const stamp = new Date(at).toISOString().replace(/[-:]/g, '');
  return `${stamp}-${id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100) || 'no-id'}.json`;
}

function bodyField(body: Buffer): { body: string } | { bodyBase64: string } {
  try {
    return { body: new TextDecoder('utf-8', { fatal: true }).decode(body) };
  } catch {
    return { bodyBase64: body.toString('base64') };
  }
}

export async function runListen(opts: ListenOptions, deps: Deps, hooks: ListenHooks = {}): Promise<Result> {
  const loaded = await loadSecrets(deps, opts.secret, true);
  if (!loaded && !opts.noVerify) {
    const e = noSecret();
    throw new UsageError(e.why, {
      hints: [...e.hints, 'or --no-verify to accept unverified deliveries (testing only)'],
    });
  }
  const recordDir = opts.record === undefined ? undefined : resolve(deps.cwd, opts.record);
  if (recordDir !== undefined) {
    try {
      mkdirSync(recordDir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new UsageError(`--record: cannot create "${opts.record}" (${(err as NodeJS.ErrnoException).code})`);
    }
  }
  const json = deps.out.format() === 'json';
  const plain = deps.out.format() === 'plain';
  const stop = new AbortController();
  const onTerm = () => stop.abort();
  deps.signal.addEventListener('abort', onTerm, { once: true });
  process.once('SIGTERM', onTerm);
  let chain = Promise.resolve();
  let lastName = 0;

  const handle = async (d: ReceivedDelivery): Promise<void> => {
    let forward: DeliveryLine['forward'];
    let forwardDoc: { status: number } | { error: string } | undefined;
    if (d.accepted && recordDir !== undefined) {
      lastName = Math.max(lastName + 1, d.at);
      const doc = {
        seq: d.seq,
        receivedAt: new Date(d.at).toISOString(),
        id: d.id,
        headers: d.headers,
        ...bodyField(d.body),
      };
      try {
        writeFileSync(join(recordDir, recordName(lastName, d.id)), `${JSON.stringify(doc, null, 2)}\n`, {
          mode: 0o600,
          flag: 'wx',
        });
      } catch (err) {
        deps.out.note([
          own(paints.yellow, 'mq: warning:'),
          ' could not record a delivery: ',
          v(String((err as Error).message)),
        ]);
      }
    }
    if (d.accepted && opts.forward !== undefined) {
      try {
        const status = await post(opts.forward, d.body, d.headers, FORWARD_TIMEOUT_MS, stop.signal);
        forward = String(status);
        forwardDoc = { status };
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        forwardDoc = { error: e.code ?? e.message };
        forward = forwardDoc.error;
      }
    }
    if (d.accepted && d.event !== undefined && hooks.onEvent) {
      try {
        await hooks.onEvent(d.event, d);
      } catch (err) {
        deps.out.note([own(paints.yellow, 'mq: warning:'), ' ', v(String((err as Error).message))]);
      }
    }
    const line: DeliveryLine = {
      at: new Date(d.at).toISOString(),
      id: d.id,
      type: d.event?.type ?? '',
      prs: '',
      status: d.status,
      result: d.result,
      forward,
    };
    const doc = {
      at: line.at,
      id: d.id,
      type: line.type || null,
      prs: d.event ? eventPrs(d.event) : [],
      status: d.status,
      result: d.result,
      ...(d.message !== undefined ? { message: d.message } : {}),
      ...(forwardDoc ? { forward: forwardDoc } : {}),
    };
    await deps.out.stream(doc, {
      table: [{ lines: [deliveryLine({ ...line, prs: prsText(d.event, false) })] }],
      plain: [{ headers: [], rows: [deliveryRow({ ...line, prs: prsText(d.event, true) })] }],
    });
  };

  const receiver = await startReceiver(
    {
      host: opts.host,
      port: opts.port,
      secrets: opts.noVerify ? undefined : loaded?.secrets,
      now: () => deps.clock.now(),
    },
    (d) => {
      chain = chain.then(() => handle(d)).catch(() => {});
    },
  ).catch((err: NodeJS.ErrnoException) => {
    process.off('SIGTERM', onTerm);
    throw new UsageError(`--port: cannot listen on ${opts.host}:${opts.port} (${err.code ?? err.message})`);
  });
  try {
    // The first stdout line says where (scripts wait for it).
    deps.out.raw(
      json ? `${JSON.stringify({ listening: receiver.url })}\n` : `mq webhooks listening on ${receiver.url}\n`,
    );
    if (opts.noVerify) {
      deps.out.note([
        own(paints.banner, ' --no-verify '),
        ' deliveries are NOT verified: anyone who can reach ',
        v(receiver.url),
        ' can send events',
      ]);
    }
    if (!opts.noVerify && !plain && !json) {
      deps.out.note([
        'verifying with ',
        v(String(loaded?.secrets.length)),
        ` secret(s) from ${loaded?.from}; Ctrl-C stops`,
      ]);
    }
    if (!plain && !json) await deps.out.stream(null, { table: [{ lines: [DELIVERY_HEADER] }] });
    if (!stop.signal.aborted) await new Promise((done) => stop.signal.addEventListener('abort', done, { once: true }));
  } finally {
    process.off('SIGTERM', onTerm);
    await receiver.close();
    await chain;
  }
  return { exitCode: 0 };
}
