/**
 * The serialised answers of the hot read (`getSubmittedPullRequest`), kept until anything changes.
 * Building a PR's view, its wire record and the JSON text is most of the emulator's own work per
 * request; a client polling a PR (`mq wait`, CI loops) asks for the same answer many times.
 *
 * An answer is reused only while nothing could have changed it: the server calls `invalidate()`
 * around every request that changes state, on every clock tick and on every retention prune, and
 * the engine counts the time steps it applies (`changes`), which a read applies too before it
 * answers. Any of these drops every answer at once.
 */
export interface ChangeCounter {
  /** Grows whenever the engine applies due events (runs finishing, batch timers). */
  readonly changes: number;
}

export class ReadCache {
  private generation = 0;
  private readonly answers = new Map<string, { generation: number; changes: number; text: string }>();

  constructor(
    private readonly engine: ChangeCounter,
    private readonly max = 4096,
  ) {}

  /** State changed outside the engine's time steps: no kept answer may be used again. */
  invalidate(): void {
    this.generation++;
    this.answers.clear();
  }

  get(key: string): string | undefined {
    const a = this.answers.get(key);
    return a !== undefined && a.generation === this.generation && a.changes === this.engine.changes
      ? a.text
      : undefined;
  }

  /** The state as of now: an answer computed from here on is kept only if nothing changed meanwhile. */
  stamp(): { generation: number; changes: number } {
    return { generation: this.generation, changes: this.engine.changes };
  }

  /** Keeps `text`, computed from the state `stamp` was taken of, unless that state is gone. */
  set(key: string, text: string, stamp: { generation: number; changes: number }): void {
    if (stamp.generation !== this.generation || stamp.changes !== this.engine.changes) return;
    if (this.answers.size >= this.max) this.answers.clear();
    this.answers.set(key, { ...stamp, text });
  }
}
