/**
 * One error vocabulary: `error.kind` of the --json error document is the library's
 * `MergeQueueError.kind` and the name of the exit code in the table (`mq help exit-codes`), for
 * every error class in src/ and every code of the table.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, ConfigError, EXIT_CODES, exitCodeForStatus, MqError, UsageError } from '../../src/errors.js';
import { exitCodesText } from '../../src/help/topics.js';
import { MergeQueueError, toPublicError } from '../../src/lib/errors.js';
import { presentError } from '../../src/output/present-error.js';
import { useFakeServer } from '../helpers/fake-server.js';
import { runMq } from '../helpers/in-process.js';
import { memoryIO } from '../helpers/memory-io.js';
import { baseEnv } from '../helpers/run-cli.js';

/** MqError and every class in src/ that extends it, directly or not, found by reading the sources. */
function mqErrorClasses(): string[] {
  const parent = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.ts')) {
        const text = readFileSync(path, 'utf8');
        for (const m of text.matchAll(/\bclass\s+(\w+)\s+extends\s+(\w+)/g)) parent.set(m[1] as string, m[2] as string);
      }
    }
  };
  walk(join(import.meta.dirname, '../../src'));
  const reaches = (c: string | undefined): boolean => c !== undefined && (c === 'MqError' || reaches(parent.get(c)));
  return ['MqError', ...[...parent.keys()].filter((c) => reaches(parent.get(c)))];
}

/** Instances of each class, with the exit codes it is raised with. */
const apiError = (status: number) => new ApiError(exitCodeForStatus(status), 'get PR', `HTTP ${status}`, status, '');
const INSTANCES: Record<string, () => MqError[]> = {
  MqError: () => EXIT_CODES.filter((e) => e.name !== 'ok').map((e) => new MqError(e.code, 'do it', 'it failed')),
  UsageError: () => [new UsageError('--pr: must be a number')],
  ConfigError: () => [new ConfigError('no token')],
  ApiError: () => [300, 400, 401, 403, 404, 409, 413, 429, 500, 503].map(apiError),
};

/** The `error.kind` mq prints under --json for what was thrown; undefined when it prints no document. */
function jsonKind(err: unknown): string | undefined {
  const io = memoryIO();
  presentError({ io, json: true, debug: false, commandPath: 'mq status' }, err);
  return io.stdout === '' ? undefined : (JSON.parse(io.stdout) as { error: { kind: string } }).error.kind;
}

const tableName = (code: number) => EXIT_CODES.find((e) => e.code === code)?.name;

describe('error.kind under --json is the library kind and the exit-code name', () => {
  it('every MqError class in src/ has rows here', () => {
    expect(mqErrorClasses().sort()).toEqual(Object.keys(INSTANCES).sort());
  });

  const rowsOf = ([cls, make]: [string, () => MqError[]]) => make().map((err) => [cls, err.exitCode, err] as const);
  const rows = Object.entries(INSTANCES).flatMap(rowsOf);
  it.each(rows)('%s exiting %i', (_cls, code, err) => {
    const lib = toPublicError(err) as MergeQueueError;
    expect(lib).toBeInstanceOf(MergeQueueError);
    expect(lib.kind).toBe(tableName(code));
    // Ctrl-C prints no JSON document (unchanged); every other failure names its kind.
    expect(jsonKind(err)).toBe(tableName(code) === 'interrupted' ? undefined : lib.kind);
    expect(err.kind).toBe(lib.kind);
  });

  it('every code of the table but ok is reached, each name listed by `mq help exit-codes`', () => {
    const codes = new Set(rows.map(([, code]) => code));
    for (const e of EXIT_CODES.filter((x) => x.name !== 'ok')) {
      expect(codes.has(e.code), e.name).toBe(true);
      expect(exitCodesText()).toMatch(new RegExp(`\\b${e.code}  ${e.name} `));
    }
  });

  it('what is not an MqError: a commander error is usage, anything else unexpected', () => {
    expect(jsonKind(Object.assign(new Error('unknown option'), { code: 'commander.unknownOption' }))).toBe('usage');
    expect(jsonKind(new TypeError('boom'))).toBe('unexpected');
  });
});

describe('through a command line', () => {
  const fake = useFakeServer();
  const kindOf = async (args: string[], env: Record<string, string | undefined>) => {
    const r = await runMq([...args, '--json'], { env });
    return { code: r.exitCode, kind: (JSON.parse(r.stdout) as { error: { kind: string } }).error.kind };
  };
  it.each([
    ['a 404', ['status', '42'], 404, { code: 3, kind: 'not-found' }],
    ['a 409', ['cancel', '42'], 409, { code: 5, kind: 'rejected' }],
    ['a 401', ['status', '42'], 401, { code: 4, kind: 'auth' }],
  ])('%s', async (_name, args, status, want) => {
    fake.on('POST /getSubmittedPullRequest', { status, body: 'no' });
    fake.on('POST /cancelPullRequest', { status, body: 'no' });
    expect(await kindOf(args, baseEnv(fake.url))).toEqual(want);
  });
  it('no token: config; a bad flag: usage', async () => {
    const env = { ...baseEnv(fake.url), MQ_TOKEN: undefined, TRUNK_API_TOKEN: undefined };
    expect(await kindOf(['status', '42'], env)).toEqual({ code: 7, kind: 'config' });
    const badFlag = ['status', '42', '--timeout', 'soon'];
    expect(await kindOf(badFlag, baseEnv(fake.url))).toEqual({ code: 2, kind: 'usage' });
  });
});
