// Queue order without O(n) shuffling: the started list (never reordered), then waiting buckets by
// priority value (FIFO each), so priority never preempts started PRs and every move is O(1).
// NOT_READY entries are a separate list. Lists are intrusive (prev/next on entries): plain JSON.
import { indexAdd } from './targets.js';
import type { Entry, ListLinks, ListName, QueueRecord } from './types.js';

export const emptyList = (): ListLinks => ({ head: null, tail: null, size: 0 });

export function entryOf(q: QueueRecord, prNumber: number | null): Entry | undefined {
  return prNumber === null ? undefined : q.entries[String(prNumber)];
}

function listFor(q: QueueRecord, e: Entry, name: ListName): ListLinks {
  if (name === 'started') return q.started;
  if (name === 'notReady') return q.notReady;
  const key = String(e.bucket ?? e.priorityValue);
  let list = q.waiting[key];
  if (!list) {
    list = emptyList();
    q.waiting[key] = list;
  }
  return list;
}

export function append(q: QueueRecord, e: Entry, name: ListName): void {
  if (e.list !== null) unlink(q, e);
  if (name === 'waiting') e.bucket = e.priorityValue;
  const list = listFor(q, e, name);
  e.list = name;
  e.prev = list.tail;
  e.next = null;
  const tail = entryOf(q, list.tail);
  if (tail) tail.next = e.prNumber;
  else list.head = e.prNumber;
  list.tail = e.prNumber;
  list.size++;
  if (name === 'waiting') indexAdd(q.waitingIndex, e.targets, 1);
}

/** Puts a PR cleared by a bisection back at the front of its bucket, keeping returned PRs' order. */
export function returnToWaiting(q: QueueRecord, e: Entry): void {
  if (e.list !== null) unlink(q, e);
  e.bucket = e.priorityValue;
  const list = listFor(q, e, 'waiting');
  const earlier = (c: Entry) =>
    c.firstTestAt !== null &&
    ((c.admittedAt ?? 0) < (e.admittedAt ?? 0) || (c.admittedAt === e.admittedAt && c.ordinal < e.ordinal));
  let after: Entry | undefined;
  for (let cur = entryOf(q, list.head); cur && earlier(cur); cur = entryOf(q, cur.next)) after = cur;
  const next = after ? entryOf(q, after.next) : entryOf(q, list.head);
  e.list = 'waiting';
  e.prev = after ? after.prNumber : null;
  e.next = next ? next.prNumber : null;
  if (after) after.next = e.prNumber;
  else list.head = e.prNumber;
  if (next) next.prev = e.prNumber;
  else list.tail = e.prNumber;
  list.size++;
  indexAdd(q.waitingIndex, e.targets, 1);
}

/** Inserts into the started list after `after` (null = head) and renumbers ranks (D16). */
export function insertStarted(q: QueueRecord, e: Entry, after: Entry | null): void {
  if (e.list !== null) unlink(q, e);
  const list = q.started;
  const next = after ? entryOf(q, after.next) : entryOf(q, list.head);
  e.list = 'started';
  e.prev = after ? after.prNumber : null;
  e.next = next ? next.prNumber : null;
  if (after) after.next = e.prNumber;
  else list.head = e.prNumber;
  if (next) next.prev = e.prNumber;
  else list.tail = e.prNumber;
  list.size++;
  let rank = 0;
  for (let cur = entryOf(q, list.head); cur; cur = entryOf(q, cur.next)) cur.pinRank = ++rank;
  q.pinSeq = rank;
}

export function unlink(q: QueueRecord, e: Entry): void {
  if (e.list === null) return;
  const list = listFor(q, e, e.list);
  const prev = entryOf(q, e.prev);
  const next = entryOf(q, e.next);
  if (prev) prev.next = e.next;
  else list.head = e.next;
  if (next) next.prev = e.prev;
  else list.tail = e.prev;
  list.size--;
  if (e.list === 'waiting') {
    indexAdd(q.waitingIndex, e.targets, -1);
    if (list.size === 0) delete q.waiting[String(e.bucket)];
  }
  e.list = null;
  e.prev = null;
  e.next = null;
  e.bucket = null;
}

/** Moves an entry into the started list; its queue position does not change (see header). */
export function pin(q: QueueRecord, e: Entry): void {
  if (e.list === 'started') return;
  append(q, e, 'started');
  e.pinRank = ++q.pinSeq;
}

function sortedBuckets(q: QueueRecord): ListLinks[] {
  return Object.keys(q.waiting)
    .map(Number)
    .sort((a, b) => a - b)
    .map((k) => q.waiting[String(k)] as ListLinks);
}

/** Admitted entries in queue order; the next pointer is read before yielding, so moving the current is safe. */
export function* inQueueOrder(q: QueueRecord): Generator<Entry> {
  const lists = [q.started, ...sortedBuckets(q)];
  for (const list of lists) {
    let e = entryOf(q, list.head);
    const stopAt = list === q.started ? q.started.tail : null;
    while (e) {
      const next = e.prNumber === stopAt ? undefined : entryOf(q, e.next);
      yield e;
      e = next;
    }
  }
}
