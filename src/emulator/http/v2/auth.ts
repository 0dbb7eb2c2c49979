/**
 * v2 credentials: `Authorization: Bearer trunk_v2_…` keys, each with Trunk's merge-queue
 * permissions. A key with none may still read. The v1 organization token is refused here.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

import { V2Error } from './errors.js';

/** Trunk's permissions: merge and cancel PRs, set priority, skip batching, direct to queue, settings. */
export const PERMISSIONS = ['merge', 'priority', 'skipBatching', 'direct', 'settings'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export interface ApiKey {
  name: string;
  key: string;
  permissions: Permission[];
}

export const newKeyValue = (): string => `trunk_v2_${randomBytes(24).toString('hex')}`;

/** The key every emulator has: every permission, the value given or a fresh one. */
export const defaultApiKey = (key?: string): ApiKey => ({
  name: 'default',
  key: key ?? newKeyValue(),
  permissions: [...PERMISSIONS],
});

/** `NAME=PERMS` (comma-separated permissions, `all` or `none`) as a key with a fresh value. */
export function parseApiKeySpec(spec: string): ApiKey {
  const m = /^([A-Za-z0-9_.-]{1,64})=(.*)$/.exec(spec);
  if (!m) throw new Error(`expected NAME=PERMISSIONS (NAME: letters, digits, _ . -), got "${spec}"`);
  const list = (m[2] as string)
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (list.length === 1 && list[0] === 'all')
    return { name: m[1] as string, key: newKeyValue(), permissions: [...PERMISSIONS] };
  if (list.length === 1 && list[0] === 'none') return { name: m[1] as string, key: newKeyValue(), permissions: [] };
  for (const p of list) {
    if (!(PERMISSIONS as readonly string[]).includes(p)) {
      throw new Error(`unknown permission "${p}"; use all, none or any of ${PERMISSIONS.join(', ')}`);
    }
  }
  return { name: m[1] as string, key: newKeyValue(), permissions: list as Permission[] };
}

/** The key a request presents, or a 401 in v2's envelope. */
export function authenticate(req: IncomingMessage, keys: readonly ApiKey[]): ApiKey {
  const header = req.headers.authorization;
  if (header === undefined || header === '') {
    const hint = req.headers['x-api-token'] !== undefined ? '; the v1 x-api-token works only on /v1' : '';
    throw new V2Error('AUTHENTICATION_REQUIRED', `send Authorization: Bearer <API key>${hint}`);
  }
  const m = /^Bearer (\S+)$/.exec(header);
  const given = m ? Buffer.from(m[1] as string) : undefined;
  for (const k of keys) {
    const want = Buffer.from(k.key);
    if (given && given.length === want.length && timingSafeEqual(given, want)) return k;
  }
  throw new V2Error('INVALID_TOKEN', 'invalid API key');
}

export function requirePermission(key: ApiKey, perm: Permission, what: string): void {
  if (!key.permissions.includes(perm)) {
    throw new V2Error(
      'INSUFFICIENT_PERMISSIONS',
      `API key "${key.name}" lacks the ${perm} permission needed to ${what}`,
    );
  }
}
