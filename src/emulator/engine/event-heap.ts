// A binary min-heap over the state's `events` array (persisted as is), by (time, kind, seq); cancelled
// runs' events are skipped when they surface (lazy deletion).
import type { ScheduledEvent } from './types.js';

function less(a: ScheduledEvent, b: ScheduledEvent): boolean {
  if (a[0] !== b[0]) return a[0] < b[0];
  if (a[1] !== b[1]) return a[1] < b[1];
  return a[2] < b[2];
}

export function heapPush(heap: ScheduledEvent[], item: ScheduledEvent): void {
  heap.push(item);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const p = heap[parent] as ScheduledEvent;
    if (!less(item, p)) break;
    heap[i] = p;
    i = parent;
  }
  heap[i] = item;
}

export function heapPeek(heap: ScheduledEvent[]): ScheduledEvent | undefined {
  return heap[0];
}

export function heapPop(heap: ScheduledEvent[]): ScheduledEvent | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (top === undefined || last === undefined || heap.length === 0) return top;
  let i = 0;
  const n = heap.length;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    let mItem = last;
    if (l < n && less(heap[l] as ScheduledEvent, mItem)) {
      m = l;
      mItem = heap[l] as ScheduledEvent;
    }
    if (r < n && less(heap[r] as ScheduledEvent, mItem)) {
      m = r;
      mItem = heap[r] as ScheduledEvent;
    }
    if (m === i) break;
    heap[i] = mItem;
    i = m;
  }
  heap[i] = last;
  return top;
}

/** Removes rejected events, keeping pop order (seq breaks ties); bounds memory of dead events. */
export function heapRetain(heap: ScheduledEvent[], keep: (e: ScheduledEvent) => boolean): void {
  let j = 0;
  for (let i = 0; i < heap.length; i++) {
    const e = heap[i] as ScheduledEvent;
    if (keep(e)) heap[j++] = e;
  }
  heap.length = j;
  // A sorted array is a heap.
  heap.sort((a, b) => (less(a, b) ? -1 : less(b, a) ? 1 : 0));
}
