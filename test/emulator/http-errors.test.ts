/**
 * Errors over real HTTP: 401, 400 naming the field, 404/405, and a server that survives junk.
 */
import { describe, expect, it } from 'vitest';

import { Client, TOKEN, queue, repo, useEmulator } from './http-helpers.js';

const { emu, client: c } = useEmulator();

describe('errors', () => {
  it('401 without a token or with a wrong one', async () => {
    const none = await fetch(`${c.origin}/v1/getQueue`, { method: 'POST', body: JSON.stringify(queue) });
    expect([none.status, await none.text(), none.headers.get('content-type')]).toEqual([
      401,
      'missing x-api-token header',
      'text/plain; charset=utf-8',
    ]);
    const wrong = await new Client(emu, `${TOKEN}x`).post('createQueue', queue);
    expect([wrong.status, wrong.text]).toEqual([401, 'invalid API token']);
    expect((await c.post('getQueue', queue)).status).toBe(404); // the refused create changed nothing
  });

  it('a fork PR run id stands in for the token on setImpactedTargets only', async () => {
    await c.post('createQueue', { ...queue, mode: 'parallel' });
    expect((await c.post('/_emulator/pullRequests', { repo, number: 5, sha: 'a'.repeat(40) })).status).toBe(200);
    const fork = new Client(emu, '');
    const targets = { ...queue, pr: { number: 5, sha: 'a'.repeat(40) }, impactedTargets: ['//a'] };
    const runId = { 'x-forked-workflow-run-id': '9876543210' };
    expect((await fork.post('setImpactedTargets', targets, runId)).status).toBe(200);
    expect((await fork.post('setImpactedTargets', targets, { 'x-forked-workflow-run-id': 'abc' })).text).toBe(
      'invalid x-forked-workflow-run-id: expected a workflow run id',
    );
    for (const [endpoint, body] of [
      ['submitPullRequest', { ...queue, pr: { number: 5 } }],
      ['getSubmittedPullRequest', { ...queue, pr: { number: 5 } }],
      ['getQueue', queue],
    ] as const) {
      const refused = await fork.post(endpoint, body, runId);
      expect([endpoint, refused.status, refused.text]).toEqual([
        endpoint,
        401,
        'x-forked-workflow-run-id authenticates setImpactedTargets only; send x-api-token',
      ]);
    }
    expect((await fork.post('/_emulator/clock/advance', { minutes: 1 }, runId)).status).toBe(401);
    expect((await fork.post('setImpactedTargets', targets)).text).toBe('missing x-api-token header');
    // A wrong token is refused whatever run id comes with it.
    expect((await new Client(emu, 'wrong').post('setImpactedTargets', targets, runId)).text).toBe('invalid API token');
    // The upload took effect: the PR, submitted with the token, is ready (its targets are known).
    expect((await c.post('submitPullRequest', { ...queue, pr: { number: 5 } })).status).toBe(200);
    expect(
      (await c.post('getSubmittedPullRequest', { ...queue, pr: { number: 5 } })).json().readiness.hasImpactedTargets,
    ).toBe(true);
  });

  it('400 for malformed JSON, a non-object body, and schema errors naming the field', async () => {
    const malformed = await c.post('createQueue', '{"repo": ');
    expect(malformed.status).toBe(400);
    expect(malformed.text).toMatch(/^malformed JSON in request body: /);
    expect((await c.post('createQueue', '[1]')).text).toBe('request body: expected a JSON object');
    expect((await c.post('createQueue', '')).status).toBe(400);
    const cases: Array<[unknown, string]> = [
      [{ ...queue, pr: { number: -1 } }, 'pr.number: expected integer 0..4294967295'],
      [{ ...queue, pr: { number: 1.5 } }, 'pr.number: expected integer 0..4294967295'],
      [{ ...queue, pr: { number: 4294967296 } }, 'pr.number: expected integer 0..4294967295'],
      [{ ...queue, pr: {} }, 'pr.number: required'],
      [{ repo: { host: 'github.com', name: 'app' }, targetBranch: 'main', pr: { number: 1 } }, 'repo.owner: required'],
      [
        { ...queue, pr: { number: 1 }, priority: 'asap' },
        'priority: expected one of urgent, high, medium, low or an integer 0..255',
      ],
      [
        { ...queue, pr: { number: 1 }, priority: 256 },
        'priority: expected one of urgent, high, medium, low or an integer 0..255',
      ],
      [{ ...queue, pr: { number: 1 }, noBatch: 'yes' }, 'noBatch: expected true or false'],
      [{ repo, pr: { number: 1 } }, 'targetBranch: required'],
    ];
    await c.post('createQueue', queue);
    for (const [body, message] of cases) {
      const a = await c.post('submitPullRequest', body);
      expect([a.status, a.text], JSON.stringify(body)).toEqual([400, message]);
    }
    expect((await c.post('getQueue', queue)).json().enqueuedPullRequests).toEqual([]);
  });

  it('404 for an unknown path, 405 for a wrong method', async () => {
    const unknown = await c.post('/v1/frobnicate', {});
    expect([unknown.status, unknown.text]).toEqual([404, 'no such endpoint: /v1/frobnicate']);
    const wrong = await c.get('/v1/submitPullRequest');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect(wrong.type).toBe('text/plain; charset=utf-8');
    const metricsPost = await c.post('getMergeQueueMetrics', {});
    expect([metricsPost.status, metricsPost.headers.get('allow')]).toEqual([405, 'GET']);
  });
});

describe('robustness', () => {
  it('answers garbage and aborted uploads without falling over, and keeps connections alive', async () => {
    const { connect } = await import('node:net');
    const raw = await new Promise<string>((resolve) => {
      const sock = connect(emu.port, emu.host, () => sock.write('THIS IS NOT HTTP\r\n\r\n'));
      let data = '';
      sock.on('data', (d) => (data += d.toString()));
      sock.on('close', () => resolve(data));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);

    await new Promise<void>((resolve) => {
      const sock = connect(emu.port, emu.host, () => {
        sock.write(
          `POST /v1/createQueue HTTP/1.1\r\nHost: x\r\nx-api-token: ${TOKEN}\r\nContent-Length: 1000\r\n\r\n{"repo":`,
        );
        setTimeout(() => sock.destroy(), 20);
      });
      sock.on('close', () => resolve());
      sock.on('error', () => resolve());
    });

    const bad = await c.post('/_emulator/testRuns/%E0%A4%A/complete', { result: 'passed' });
    expect(bad.status).toBe(400);
    const ok = await c.post('createQueue', queue);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('keep-alive')).toBe('timeout=65');
  });
});
