/**
 * A streamed request body (StreamBody) through the HTTP layer, on both transports, against the
 * recording fake server: the bytes arrive intact with or without a known length, a replayable body
 * is sent again on a retry, one that is not replayable never is, --debug shows its size only, and
 * a call's signal stops a body that is still being sent.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeHttp, HttpClient } from '../../src/api/http.js';
import type { CallSpec } from '../../src/api/http-types.js';
import type { StreamBody } from '../../src/api/transport.js';
import { useFakeServer } from '../helpers/fake-server.js';

const TOKEN = 'tok_live_stream_0123456789abcdef';

const fake = useFakeServer();
afterAll(async () => {
  await closeHttp();
});

/** A body of `pieces`, recording each open and each chunk handed to the transport. */
function recorded(pieces: string[], options: { replayable?: boolean; knownLength?: boolean } = {}) {
  const log = { opens: 0, chunks: 0 };
  const buffers = pieces.map((p) => Buffer.from(p));
  const body: StreamBody = {
    length: options.knownLength === false ? undefined : buffers.reduce((n, b) => n + b.length, 0),
    replayable: options.replayable ?? true,
    async *open() {
      log.opens++;
      for (const b of buffers) {
        log.chunks++;
        yield b;
      }
    },
  };
  return { body, log };
}

describe.each(['node', 'undici'] as const)('streamed request bodies (%s transport)', (transport) => {
  function client() {
    const lines: string[] = [];
    const http = new HttpClient({
      baseUrl: fake.url,
      token: TOKEN,
      userAgent: 'mq/test',
      timeoutMs: 5000,
      backoffMs: 1,
      sleep: async () => undefined,
      env: {},
      transport,
      debug: (l) => lines.push(l),
    });
    return { http, lines };
  }
  const spec = (body: StreamBody, idempotent = true): CallSpec => ({
    endpoint: 'setImpactedTargets',
    method: 'POST',
    body,
    idempotent,
    what: 'set targets',
  });
  // ~1.5 MiB in uneven pieces, with multi-byte characters cut nowhere in particular.
  const pieces = Array.from(
    { length: 300 },
    (_, i) => `${i === 0 ? '[' : ','}"//svc/é🎯/${i}/${'x'.repeat(i * 17)}"`,
  ).concat([']']);
  const whole = pieces.join('');

  it('arrives byte for byte, with content-length when the length is known', async () => {
    fake.on('POST /setImpactedTargets', { status: 200, body: 'OK' });
    const { http } = client();
    const { body, log } = recorded(pieces);
    await http.call(spec(body));
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.raw).toBe(whole);
    expect(fake.requests[0]?.headers['content-length']).toBe(String(Buffer.byteLength(whole)));
    expect(fake.requests[0]?.headers['content-type']).toBe('application/json');
    expect(log).toEqual({ opens: 1, chunks: pieces.length });
  });

  it('arrives intact in chunked encoding when the length is unknown', async () => {
    fake.on('POST /setImpactedTargets', { status: 200, body: 'OK' });
    const { http } = client();
    const { body } = recorded(pieces, { knownLength: false });
    await http.call(spec(body));
    expect(fake.requests[0]?.raw).toBe(whole);
    expect(fake.requests[0]?.headers['transfer-encoding']).toBe('chunked');
  });

  it('a replayable body is opened again for a retry and sent whole each time', async () => {
    fake.on('POST /setImpactedTargets', { status: 503, body: 'busy' }, { status: 200, body: 'OK' });
    const { http } = client();
    const { body, log } = recorded(pieces);
    await http.call(spec(body));
    expect(fake.requests.map((r) => r.raw)).toEqual([whole, whole]);
    expect(log.opens).toBe(2);
  });

  it('a body that cannot be replayed is not retried once sent, even for an idempotent call', async () => {
    fake.on('POST /setImpactedTargets', { status: 503, body: 'busy' }, { status: 200, body: 'OK' });
    const { http } = client();
    const { body, log } = recorded(pieces, { replayable: false });
    await expect(http.call(spec(body))).rejects.toMatchObject({ exitCode: 6 });
    expect(fake.requests).toHaveLength(1);
    expect(log.opens).toBe(1);
  });

  it('--debug shows the size of a streamed body, never its bytes', async () => {
    fake.on('POST /setImpactedTargets', { status: 200, body: 'OK' });
    const { http, lines } = client();
    const { body } = recorded(pieces);
    await http.call(spec(body));
    expect(lines).toContain(`> (a streamed body of ${Buffer.byteLength(whole)} bytes)`);
    expect(lines.join('\n')).not.toContain('//svc/');
    expect(lines.join('\n')).not.toContain(TOKEN);
  });

  it("a call's signal stops a body that is still being sent", async () => {
    fake.on('POST /setImpactedTargets', { status: 200, body: 'OK' });
    const { http } = client();
    const controller = new AbortController();
    let sent = 0;
    const body: StreamBody = {
      replayable: true,
      async *open() {
        // The first chunk goes out; then the body waits for ever, as a stuck reader would.
        yield Buffer.from('{"a":');
        sent++;
        controller.abort();
        await new Promise(() => undefined);
      },
    };
    await expect(http.call(spec(body), { signal: controller.signal })).rejects.toMatchObject({ exitCode: 130 });
    expect(sent).toBe(1);
    expect(fake.requests).toHaveLength(0);
  });
});
