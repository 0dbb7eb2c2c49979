import { ApiError } from '../../errors.js';
import type { CredentialCheck, CredentialCheckRequest, WriteProbe } from '../credential.js';
import type { CallOptions } from '../http.js';
import type { V2Base } from './base.js';
import { idList } from './wire.js';

/** The v2 client's requests (base.ts). */
type Wire = V2Base;

/** The nil UUID: never a PR's id, so the dequeue below can only be refused or not found. */
export const NO_SUCH_PR = '00000000-0000-0000-0000-000000000000';
const PROBE_PATH = `v2/pull-requests/${NO_SUCH_PR}/dequeue`;

export async function checkV2Credential(
  client: Wire,
  permission: string,
  req: CredentialCheckRequest,
  call?: CallOptions,
): Promise<CredentialCheck> {
  const read = client.read('v2/merge-queues', { limit: '1' }, idList, 'check the API key', call);
  if (!req.probeWrite) {
    await read;
    return {};
  }
  const [, write] = await Promise.all([read, probeWrite(client, permission, call)]);
  return { write };
}

/**
 * 403 means the key lacks the permission. 404 means it was not refused: the emulator checks the
 * permission before the lookup; Trunk may look the id up first, so 404 there is the best sign there is.
 */
async function probeWrite(client: Wire, permission: string, call?: CallOptions): Promise<WriteProbe> {
  const base = { permission, probe: `POST /${PROBE_PATH}` };
  try {
    await client.http.call(
      { endpoint: PROBE_PATH, method: 'POST', idempotent: true, what: 'probe the key', permission },
      call,
    );
    return { ...base, verdict: 'allowed', detail: 'probe answered 2xx' };
  } catch (err) {
    if (!(err instanceof ApiError)) return { ...base, verdict: 'not checked', detail: String(err) };
    const code = err.code ? ` ${err.code}` : '';
    if (err.status === 403) return { ...base, verdict: 'refused', detail: `403${code}` };
    if (err.status === 404) return { ...base, verdict: 'allowed', detail: 'probe answered 404, not 403' };
    return { ...base, verdict: 'not checked', detail: `probe answered ${err.status || 'no HTTP status'}${code}` };
  }
}
