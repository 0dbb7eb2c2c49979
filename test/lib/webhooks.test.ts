/**
 * verifyWebhook against vectors computed here with node:crypto (apart from the signer under test):
 * a fixed secret, id, timestamp and body; a fixed clock.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/lib/index.js';

const KEY = Buffer.from('0123456789abcdef0123456789abcdef', 'utf8');
const SECRET = `whsec_${KEY.toString('base64')}`;
const OTHER = `whsec_${Buffer.from('another key, 24 bytes ok', 'utf8').toString('base64')}`;
const ID = 'msg_2mQbQjZ4oXd1';
const TS = 1_767_225_600; // 2026-01-01T00:00:00Z
const NOW = () => TS * 1000;
const BODY =
  '{"type":"pull_request.failed","action":"failed","status":"failed","pr_number":42,"author":"ann",' +
  '"http_details_url":"https://app.trunk.io/x","repository":{"host":"github.com","owner":"acme","name":"widgets"},' +
  '"target_branch":"main","timestamp":"2026-01-01T00:00:00Z","failure_reason":"TEST_RUN_TIMEOUT","is_bisection":false}';

const sign = (key: Buffer, body: string | Buffer, id = ID, ts = TS) =>
  `v1,${createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${id}.${ts}.`), Buffer.from(body)]))
    .digest('base64')}`;
const headers = (sig = sign(KEY, BODY), ts = TS) => ({
  'svix-id': ID,
  'svix-timestamp': String(ts),
  'svix-signature': sig,
});

describe('verifyWebhook', () => {
  it('accepts the raw body signed with the secret and decodes the event', () => {
    const r = verifyWebhook(BODY, headers(), SECRET, { now: NOW });
    expect(r).toMatchObject({ ok: true, id: ID, timestamp: TS });
    if (!r.ok || r.event.family !== 'pull_request') throw new Error('not a PR event');
    expect(r.event).toMatchObject({
      type: 'pull_request.failed',
      pr_number: 42,
      author: 'ann',
      reason: 'TEST_RUN_TIMEOUT',
    });
    // The same bytes as a Uint8Array, the headers as Headers and in another case.
    expect(verifyWebhook(Buffer.from(BODY), new Headers(headers()), SECRET, { now: NOW }).ok).toBe(true);
    const upper = { 'Svix-Id': ID, 'SVIX-TIMESTAMP': String(TS), 'Svix-Signature': sign(KEY, BODY) };
    expect(verifyWebhook(BODY, upper, SECRET, { now: NOW }).ok).toBe(true);
  });

  it('refuses the same JSON re-serialised with other whitespace', () => {
    const reserialised = JSON.stringify(JSON.parse(BODY), null, 2);
    expect(verifyWebhook(reserialised, headers(), SECRET, { now: NOW })).toMatchObject({
      ok: false,
      reason: 'bad-signature',
    });
  });

  it.each([
    ['no prefix', KEY.toString('base64')],
    ['not base64', 'whsec_not base64!'],
    ['empty key', 'whsec_'],
    ['too short a key', `whsec_${Buffer.from('short').toString('base64')}`],
  ])('refuses a secret with %s as secret-format (never an empty key)', (_, secret) => {
    expect(verifyWebhook(BODY, headers(), secret, { now: NOW })).toMatchObject({ ok: false, reason: 'secret-format' });
  });

  it('refuses a timestamp past the 5-minute tolerance either way, accepts one within it', () => {
    const at = (ts: number) => verifyWebhook(BODY, headers(sign(KEY, BODY, ID, ts), ts), SECRET, { now: NOW });
    expect(at(TS - 301)).toMatchObject({ ok: false, reason: 'timestamp-too-old' });
    expect(at(TS + 301)).toMatchObject({ ok: false, reason: 'timestamp-in-future' });
    expect(at(TS - 299).ok).toBe(true);
    expect(at(TS + 299).ok).toBe(true);
  });

  it.each(['svix-id', 'svix-timestamp', 'svix-signature'])(
    'refuses a delivery without %s as missing-header',
    (name) => {
      const h: Record<string, string> = headers();
      delete h[name];
      const r = verifyWebhook(BODY, h, SECRET, { now: NOW });
      expect(r).toMatchObject({ ok: false, reason: 'missing-header' });
      expect(!r.ok && r.message).toContain(name);
    },
  );

  it('tries every secret of a rotation list: the second one matches', () => {
    expect(verifyWebhook(BODY, headers(), [OTHER, SECRET], { now: NOW }).ok).toBe(true);
    expect(verifyWebhook(BODY, headers(), [OTHER], { now: NOW })).toMatchObject({ ok: false, reason: 'bad-signature' });
  });

  it('accepts a header with several signatures when any v1 one matches; other versions are ignored', () => {
    const good = sign(KEY, BODY);
    const wrong = sign(Buffer.from(OTHER.slice(6), 'base64'), BODY);
    expect(verifyWebhook(BODY, headers(`${wrong} v2,abc ${good}`), SECRET, { now: NOW }).ok).toBe(true);
    // The right digest under another version prefix does not count.
    expect(verifyWebhook(BODY, headers(`v2,${good.slice(3)}`), SECRET, { now: NOW })).toMatchObject({
      reason: 'bad-signature',
    });
  });

  it('decodes leniently: an unknown type or no PR number is an unknown event; a batch lists its PRs', () => {
    const check = (body: string) => verifyWebhook(body, headers(sign(KEY, body)), SECRET, { now: NOW });
    expect(check('{"type":"test_case.status_changed"}')).toMatchObject({ ok: true, event: { family: 'unknown' } });
    expect(check('{"type":"pull_request.merged"}')).toMatchObject({
      event: { family: 'unknown', type: 'pull_request.merged' },
    });
    expect(check('[1,2]')).toMatchObject({ ok: true, event: { family: 'unknown', type: '' } });
    const batch = '{"type":"pull_request_batch.merged","pr_numbers":[3,4],"pr_numbers_in_batch":[3,4,5]}';
    expect(check(batch)).toMatchObject({
      event: {
        family: 'pull_request_batch',
        type: 'pull_request_batch.merged',
        pr_numbers: [3, 4],
        pr_numbers_in_batch: [3, 4, 5],
      },
    });
    expect(check(`{"type":"pull_request.queued","pr_number":1,"author":"${'x'.repeat(5000)}"}`)).toMatchObject({
      event: { author: 'x'.repeat(1024) },
    });
    expect(check('not json')).toMatchObject({ ok: false, reason: 'not-json' });
    expect(verifyWebhook('x'.repeat(2_000_000), headers(), SECRET, { now: NOW })).toMatchObject({
      reason: 'too-large',
    });
  });
});
