// Checking requests before they are sent and decoding answers (both versions of the API).
import type * as z from 'zod/mini';
import { ExitCode, MqError, UsageError } from '../errors.js';

export function checked<T>(schema: z.ZodMiniType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.join('.') || 'request';
  throw new UsageError(`${what}: ${path}: ${issue?.message ?? 'invalid'}`);
}

/** A read's JSON body, decoded; anything else is the server's fault (exit 1). */
export function decode<T>(schema: z.ZodMiniType<T>, body: string, what: string): T {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    const start = body.trim().slice(0, 60).replace(/\s+/g, ' ');
    throw new MqError(
      ExitCode.unexpected,
      what,
      `the service sent something unexpected: not ` +
        `JSON${start ? ` (starts with ${JSON.stringify(start)})` : ' (empty body)'}`,
      {
        hints: ['check that the API URL points at the merge queue service; rerun with --debug to see the response'],
      },
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new MqError(
      ExitCode.unexpected,
      what,
      'the service sent something unexpected: a JSON value that is not an object',
    );
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new MqError(
      ExitCode.unexpected,
      what,
      `the service sent something unexpected: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return result.data;
}
