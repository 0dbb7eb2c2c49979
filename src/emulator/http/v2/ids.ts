/**
 * v2 ids. They are derived, not stored: a hash of facts the engine state already keeps (a repo's
 * coordinates, a PR's number, a queue's key and creation time), so a v1 data dir gains them and
 * they never change across restarts. Queue entries keep the engine's own entry id.
 */
import { createHash } from 'node:crypto';

import type { EngineState, QueueRecord, RepoRef } from '../../engine/index.js';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** A name-based UUID (version 5 layout, SHA-256 bytes). */
function nameUuid(kind: string, name: string): string {
  const b = digest(`mq-emulator ${kind} ${name}`).subarray(0, 16);
  b[6] = ((b[6] as number) & 0x0f) | 0x50;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const repoName = (r: RepoRef): string => `${r.host}/${r.owner}/${r.name}`;

export const repositoryId = (r: RepoRef): string => nameUuid('repository', repoName(r));
export const pullRequestId = (r: RepoRef, n: number): string => nameUuid('pull-request', `${repoName(r)}#${n}`);

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A short opaque queue id; a queue deleted and created again gets a new one (its creation time differs). */
export function queueId(q: Pick<QueueRecord, 'key' | 'createdAt'>): string {
  const b = digest(`mq-emulator queue ${q.key} ${q.createdAt}`);
  let id = '';
  for (let i = 0; i < 8; i++) id += ALPHABET[(b[i] as number) % ALPHABET.length];
  return id;
}

/**
 * A repository by id among those the state names (queues, fake PRs) and `extra` (resolved by URL);
 * `createdAt` is its oldest queue's creation, else null.
 */
export function findRepository(
  state: EngineState,
  id: string,
  extra: Iterable<RepoRef> = [],
): { repo: RepoRef; createdAt: number | null } | undefined {
  let found: { repo: RepoRef; createdAt: number | null } | undefined;
  for (const q of Object.values(state.queues)) {
    if (repositoryId(q.repo) !== id) continue;
    if (!found || found.createdAt === null || q.createdAt < found.createdAt)
      found = { repo: q.repo, createdAt: q.createdAt };
  }
  if (found) return found;
  for (const p of Object.values(state.fakePrs))
    if (repositoryId(p.repo) === id) return { repo: p.repo, createdAt: null };
  for (const r of extra) if (repositoryId(r) === id) return { repo: r, createdAt: null };
  return undefined;
}

export function findQueue(state: EngineState, id: string): QueueRecord | undefined {
  for (const q of Object.values(state.queues)) if (queueId(q) === id) return q;
  return undefined;
}

/**
 * The queue holding a PR by its v2 id: its live entry's queue, else the one it was last submitted
 * to (a PR has one entry at a time in v2; the emulator keeps one per queue).
 */
export function findPullRequest(state: EngineState, id: string): { q: QueueRecord; number: number } | undefined {
  let best: { q: QueueRecord; number: number; live: boolean; at: number } | undefined;
  for (const q of Object.values(state.queues)) {
    for (const e of Object.values(q.entries)) {
      if (pullRequestId(q.repo, e.prNumber) !== id) continue;
      if (!best || (e.live && !best.live) || (e.live === best.live && e.submittedAt > best.at)) {
        best = { q, number: e.prNumber, live: e.live, at: e.submittedAt };
      }
    }
  }
  return best && { q: best.q, number: best.number };
}
