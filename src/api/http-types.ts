/** The shapes of one HTTP call and its answer, shared by the HTTP layer and its error wording. */
import type { StreamBody } from './transport.js';

export interface CallSpec {
  /** Endpoint name, e.g. `submitPullRequest`. */
  endpoint: string;
  method: 'GET' | 'POST';
  query?: Record<string, string>;
  /** Serialised JSON body, or one sent in pieces (see StreamBody for how retries treat it). */
  body?: string | StreamBody;
  /** True when repeating the call cannot change the outcome (reads, set-style writes). */
  idempotent: boolean;
  /** What the user asked for, used in messages: `submit PR #42`. */
  what: string;
}

export interface HttpResponse {
  status: number;
  contentType: string;
  /** The answer with the token already redacted from it. */
  body: string;
}
