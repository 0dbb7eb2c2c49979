/** Runs the built `bin/mq.js` as a user would, with a private config dir and no colour. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { KEY_FILE } from '../../src/boot/cache-files.js';

export const BIN = resolve(import.meta.dirname, '../../bin/mq.js');
export const TOKEN = 'tok_test_5f3a9c2e71d84b06';
/**
 * One code cache for every run of the tests (src/boot/bundles.ts), as one user's machine has: each
 * test's own HOME would make every run a first run. The start-up tests use caches of their own.
 */
export const TEST_COMPILE_CACHE = resolve(import.meta.dirname, '../../node_modules/.cache/mq-test-v8');
/** That cache's key, in each test's config dir: one user's key, so each run can use it. */
export const TEST_CACHE_KEY = Buffer.alloc(32, 'mq tests');

/** A private config dir holding the tests' code cache key. */
export function configDirWithKey(): string {
  const dir = tempDir('mq-config-');
  writeFileSync(join(dir, KEY_FILE), TEST_CACHE_KEY, { mode: 0o600 });
  return dir;
}

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export function tempDir(prefix = 'mq-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  cwd?: string;
  timeoutMs?: number;
}

/** Environment of a test run: nothing inherited that could change behaviour (CI vars, tokens). */
export function baseEnv(apiUrl?: string): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: tempDir('mq-home-'),
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    MQ_CONFIG_DIR: configDirWithKey(),
    MQ_RETRY_BASE_MS: '5',
    MQ_COMPILE_CACHE_DIR: TEST_COMPILE_CACHE,
    ...(apiUrl ? { MQ_API_URL: apiUrl, MQ_TOKEN: TOKEN, MQ_REPO: 'github.com/acme/widgets', MQ_BRANCH: 'main' } : {}),
  };
}

export async function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  const result = await execa(process.execPath, [BIN, ...args], {
    env: options.env ?? baseEnv(),
    extendEnv: false,
    input: options.input,
    stdin: options.input === undefined ? 'ignore' : undefined,
    cwd: options.cwd ?? tempDir('mq-cwd-'),
    reject: false,
    timeout: options.timeoutMs ?? 20_000,
    stripFinalNewline: false,
  });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}
