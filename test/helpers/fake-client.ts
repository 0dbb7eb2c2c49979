/**
 * A fake MergeQueueClient for behaviour tests. Each method answers from its script (values, errors
 * or functions, in order, the last one repeating); any method that was not scripted throws loudly,
 * so a behaviour cannot make a call the test did not expect. Every call is recorded with its
 * request and call options (deadline, signal). An unscripted getOrder is derived from a scripted
 * getQueue, as the v1 client does.
 */
import { MergeQueueClient } from '../../src/api/client.js';
import type { MergeQueueService } from '../../src/api/service.js';
import type { CallOptions } from '../../src/api/http.js';
import { orderFromQueue } from '../../src/api/order-v1.js';
import type { Queue } from '../../src/api/schemas.js';

type Method = Exclude<
  keyof MergeQueueService,
  'http' | 'api' | 'dryRun' | 'serviceNow' | 'impactedTargetsHead' | 'checkCredential'
>;
export type Answer = unknown | Error | ((req: unknown, call?: CallOptions) => unknown);

export interface FakeCall {
  method: Method;
  req: unknown;
  call?: CallOptions;
}

export interface FakeClient {
  client: MergeQueueService;
  calls: FakeCall[];
  callsOf(method: Method): FakeCall[];
  script(method: Method, ...answers: Answer[]): void;
}

export function fakeClient(scripts: Partial<Record<Method, Answer[]>> = {}): FakeClient {
  const table = new Map<string, Answer[]>(Object.entries(scripts) as Array<[string, Answer[]]>);
  const calls: FakeCall[] = [];
  const client = new Proxy({} as MergeQueueService, {
    get(_t, prop) {
      if (prop === 'then') return undefined;
      if (prop === 'dryRun') return false;
      // The v1 wire: its upload head is the request itself.
      if (prop === 'api') return 'v1';
      if (prop === 'impactedTargetsHead') return MergeQueueClient.prototype.impactedTargetsHead;
      // v1's credential check is a scripted getSubmittedPullRequest.
      if (prop === 'checkCredential') return MergeQueueClient.prototype.checkCredential;
      // No Date headers here: the service's time is the test's clock.
      if (prop === 'serviceNow') return (localNow: () => number) => localNow();
      return async (req: unknown, call?: CallOptions) => {
        const method = String(prop) as Method;
        calls.push({ method, req, call });
        const script = table.get(method);
        // The v1 client derives the order from the queue record: a scripted getQueue answers it.
        if (method === 'getOrder' && !table.has('getOrder') && table.has('getQueue'))
          return orderFromQueue((await client.getQueue(req as never, call)) as Queue);
        if (!script || script.length === 0)
          throw new Error(`fake client: unscripted call ${method}(${JSON.stringify(req)})`);
        const answer = script.length > 1 ? script.shift() : script[0];
        if (answer instanceof Error) throw answer;
        if (typeof answer === 'function') return (answer as (r: unknown, c?: CallOptions) => unknown)(req, call);
        return structuredClone(answer);
      };
    },
  });
  return {
    client,
    calls,
    callsOf: (method) => calls.filter((c) => c.method === method),
    script: (method, ...answers) => void table.set(method, answers),
  };
}
