/**
 * Telling a fork PR's workflow run from its event file (src/config/fork.ts): the run id is the
 * credential of an impacted targets upload only in such a run.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forkedRunId, isForkEvent } from '../../src/config/fork.js';
import { tempDir } from '../helpers/run-cli.js';

const side = (fullName: string | null) => ({ repo: fullName === null ? null : { full_name: fullName } });
const event = (head: string | null, base: string | null) => ({
  number: 42,
  pull_request: { number: 42, head: side(head), base: side(base) },
});

describe('isForkEvent', () => {
  it.each([
    ['a PR from a fork', event('someone/app', 'acme/app'), true],
    ['a PR from a branch of the same repository', event('acme/app', 'acme/app'), false],
    ['the same repository, spelled in another case', event('Acme/App', 'acme/app'), false],
    ['a fork deleted since (head.repo null)', event(null, 'acme/app'), false],
    ['no pull_request (a push)', { ref: 'refs/heads/main' }, false],
    ['not an object', null, false],
  ])('%s: %s', (_name, e, fork) => expect(isForkEvent(e)).toBe(fork));
});

describe('forkedRunId', () => {
  const write = (content: string): string => {
    const path = join(tempDir('mq-event-'), 'event.json');
    writeFileSync(path, content);
    return path;
  };
  const env = (path: string, extra: Record<string, string> = {}) => ({
    GITHUB_ACTIONS: 'true',
    GITHUB_RUN_ID: '9876543210',
    GITHUB_EVENT_PATH: path,
    ...extra,
  });
  const fork = () => write(JSON.stringify(event('someone/app', 'acme/app')));

  it("a fork PR's run: its run id", () => expect(forkedRunId(env(fork()))).toBe('9876543210'));
  it('a same-repository PR: none', () =>
    expect(forkedRunId(env(write(JSON.stringify(event('acme/app', 'acme/app')))))).toBeUndefined());
  it('a missing event file: none', () =>
    expect(forkedRunId(env(join(tempDir('mq-event-'), 'absent.json')))).toBeUndefined());
  it('an event file that is not JSON: none', () =>
    expect(forkedRunId(env(write('{"pull_request": ')))).toBeUndefined());
  it('an event path that is a directory: none', () => {
    const dir = join(tempDir('mq-event-'), 'event.json');
    mkdirSync(dir);
    expect(forkedRunId(env(dir))).toBeUndefined();
  });
  it.skipIf(process.getuid?.() === 0)('an unreadable event file: none', () => {
    const path = fork();
    chmodSync(path, 0o000);
    expect(forkedRunId(env(path))).toBeUndefined();
  });
  it.each([
    ['outside GitHub Actions', { GITHUB_ACTIONS: '' }],
    ['without GITHUB_RUN_ID', { GITHUB_RUN_ID: '' }],
    ['with a run id that is not digits', { GITHUB_RUN_ID: '12a' }],
    ['without GITHUB_EVENT_PATH', { GITHUB_EVENT_PATH: '' }],
  ])('%s: none', (_name, extra) => expect(forkedRunId(env(fork(), extra))).toBeUndefined());
});
