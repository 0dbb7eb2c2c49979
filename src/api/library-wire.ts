// The wire behind a library client: v1 or v2 chosen as the CLI chooses (src/config/api-choice.ts),
// from the options only (the library reads no environment or profile).
import { MergeQueueClient as V1Client } from './client.js';
import { DEFAULT_API_URL } from './connection-checks.js';
import { checked } from './decode.js';
import type { CallOptions, HttpClient } from './http.js';
import { impactedTargetsRequest } from './schemas.js';
import type { MergeQueueService } from './service.js';
import { V2Client } from './v2/client.js';
import { fileIdStore, memoryIdStore } from './v2/ids.js';
import { ConfigError } from '../errors.js';
import { type ApiChoice, chooseApi, V2_KEY_PREFIX } from './api-choice.js';

export interface WireOptions {
  apiUrl?: string;
  token: string;
  api?: string;
  idCacheDir?: string;
}

/** Which API and base URL; without apiUrl only a v2 key has a default (Trunk's v2 origin). */
export function libraryApi(o: WireOptions): ApiChoice | undefined {
  if (o.api === 'v1' && o.token.startsWith(V2_KEY_PREFIX)) {
    const why = `option api: v1, but the token is a v2 API key (${V2_KEY_PREFIX}…), which works only on v2`;
    throw new ConfigError(why, {
      hints: ['leave api unset (auto), or use an organization token for v1'],
    });
  }
  const given = o.apiUrl !== undefined;
  if (!given && !o.token.startsWith(V2_KEY_PREFIX) && o.api !== 'v2') return undefined;
  return chooseApi({
    flag: o.api,
    env: {},
    profileName: '',
    apiUrl: given
      ? { value: o.apiUrl as string, source: 'option apiUrl' }
      : { value: DEFAULT_API_URL, source: 'default' },
    token: o.token,
  });
}

/** The client of that wire; v2 ids in memory for this client, or in `idCacheDir` when given. */
export function wireClient(choice: ApiChoice, http: HttpClient, idCacheDir: string | undefined): MergeQueueService {
  if (choice.api === 'v1') return new V1Client(http);
  const ids = idCacheDir === undefined ? memoryIdStore() : fileIdStore(idCacheDir, new URL(choice.baseUrl).origin);
  return new V2Client(http, ids);
}

/** v2's upload body (ids for v1's coordinates, `impactsAllTargets` for ALL); v1 serialises the request itself. */
export async function targetsBody(
  inner: MergeQueueService,
  req: unknown,
  call?: CallOptions,
): Promise<string | undefined> {
  if (inner.api !== 'v2') return undefined;
  const ok = checked(impactedTargetsRequest, req, 'set impacted targets');
  const wire = await inner.impactedTargetsHead(ok, call);
  const list = ok.impactedTargets === 'ALL' ? wire.all : { impactedTargets: ok.impactedTargets };
  return JSON.stringify({ ...wire.head, ...list });
}
