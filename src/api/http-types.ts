// The HTTP layer's shapes (settings, call, answer, dry-run request), shared by http.ts and its helpers.
import type { StreamBody, TransportName } from './transport.js';

export interface CallSpec {
  /** The path under the base URL: a v1 endpoint name (`submitPullRequest`) or a v2 path (`v2/merge-queues/ID`). */
  endpoint: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  query?: Record<string, string>;
  /** Serialised JSON body, or one sent in pieces (see StreamBody for how retries treat it). */
  body?: string | StreamBody;
  /** True when repeating the call cannot change the outcome (reads, set-style writes). */
  idempotent: boolean;
  /** What the user asked for, used in messages: `submit PR #42`. */
  what: string;
  /** v2: the API key permission the call needs, named when a 403 says it is missing. */
  permission?: string;
}

export interface HttpResponse {
  status: number;
  contentType: string;
  /** The answer with the token already redacted from it. */
  body: string;
  /** The service's id for this request (v2's `X-Request-Id`), checked to be a short plain word. */
  requestId?: string;
}

/** Per call: an absolute deadline (epoch ms, against the client's clock) and a signal that stops it. */
export interface CallOptions {
  deadline?: number /* epoch ms */;
  signal?: AbortSignal;
}

export interface HttpSettings {
  baseUrl: string;
  token: string;
  /** How the token is sent: v1's `x-api-token` (default) or v2's `Authorization: Bearer`. */
  api?: 'v1' | 'v2';
  /** A fork PR's workflow run id: authenticates setImpactedTargets only (empty `x-api-token`). */
  forkedWorkflowRunId?: string;
  userAgent: string;
  timeoutMs: number;
  /** What set timeoutMs, named in the hint when a request runs out of time (default: the flag and variable). */
  timeoutSource?: string;
  connectTimeoutMs?: number;
  maxRetries?: number;
  debug?: (line: string) => void;
  /** One-line warnings about the service (its clock), each said once. */
  warn?: (message: string) => void;
  /** Waits between retries (tests pass a virtual one); Ctrl-C still ends a wait at once. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** The local clock (epoch ms); deadlines are read against it. Default Date.now. */
  now?: () => number;
  /** Base of the exponential backoff, in ms. */
  backoffMs?: number;
  /** The command's signal (Ctrl-C, or the command is over): stops a request in flight and any backoff. */
  signal?: AbortSignal;
  /** The command's deadline (epoch ms): bounds every call as a call's own deadline does; the earlier one applies. */
  deadline?: number;
  /** Where HTTP(S)_PROXY and NO_PROXY are read. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Largest answer read, in bytes. Default 64 MiB. */
  maxResponseBytes?: number;
  /** Tests only: the transport for URLs no proxy applies to (else env MQ_TEST_TRANSPORT, else node). */
  transport?: TransportName;
}

export interface RequestDescription {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}
