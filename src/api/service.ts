// What commands, views and the library call: one set of operations in mq's own terms (PR records,
// queues, timelines as src/domain describes them), whichever API version carries them.
import type { MergeQueueClient } from './client.js';

/** The v1 client (client.ts) and the v2 client (v2/client.ts) both provide it. */
export type MergeQueueService = Omit<MergeQueueClient, 'http' | 'api'> & {
  readonly http: { readonly settings: { readonly baseUrl: string } };
  /** Which API this client speaks. */
  readonly api: 'v1' | 'v2';
};
