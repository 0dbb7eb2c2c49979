// Trunk limits `GET /v2/pull-requests*` to 5 requests a second per key: a client spaces its own
// such reads so a bulk command (status or cancel of many PRs) is not answered 429.
export const PR_READS_PER_SECOND = 5;

export class Pace {
  private readonly starts: number[] = [];
  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void> = wait,
  ) {}

  /** Resolves when one more request fits in the last second's budget. */
  async turn(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const t = this.now();
      while (this.starts.length > 0 && (this.starts[0] as number) <= t - 1000) this.starts.shift();
      if (this.starts.length < this.perSecond) {
        this.starts.push(t);
        return;
      }
      await this.sleep((this.starts[0] as number) + 1000 - t, signal);
    }
  }
}

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', stop);
      resolve();
    }
    function stop() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', stop, { once: true });
  });
}
