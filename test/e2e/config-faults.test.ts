/**
 * The profile store when the machine misbehaves: a lock left by a dead process, a full disk, a
 * read-only file system, a FIFO where the file should be, a corrupt file.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useFakeServer } from '../helpers/fake-server.js';
import { KEY_FILE } from '../../src/boot/cache-files.js';
import { baseEnv, configDirWithKey, runCli, tempDir, TOKEN } from '../helpers/run-cli.js';

const fake = useFakeServer();
beforeEach(() => {
  fake.on('POST /getSubmittedPullRequest', { status: 200, body: { state: 'pending', prNumber: 1 } });
});

/** Everything a status command needs, from the environment; the config dir is the caller's. */
const fullEnv = (configDir: string) => ({ ...baseEnv(fake.url), MQ_CONFIG_DIR: configDir });

/** What the config dir holds besides the code cache's key (src/boot/cache-files.ts). */
const entries = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f !== KEY_FILE)
    .sort();

/** A pid that belonged to a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('a lock left behind', () => {
  it('by a process that is gone is taken over at once, whatever its age', async () => {
    const env = baseEnv();
    const dir = env.MQ_CONFIG_DIR as string;
    const lock = join(dir, 'config.json.lock');
    mkdirSync(lock);
    writeFileSync(join(lock, 'owner'), `${deadPid()} ${hostname()}\n`);
    // Dated in the future: an age-only check would never call it stale (and wait its 10 s out).
    const later = new Date(Date.now() + 3_600_000);
    utimesSync(lock, later, later);
    const r = await runCli(['profile', 'set', 'branch', 'dev'], { env, timeoutMs: 8_000 });
    expect(r.stderr).toBe('✓ profile "default": branch = dev\n');
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default).toEqual({ branch: 'dev' });
    expect(entries(dir)).toEqual(['config.json']);
  });
});

describe('a FIFO or other special file at the config path', () => {
  it('is refused with exit 7, without waiting for a writer', async () => {
    const dir = configDirWithKey();
    execFileSync('mkfifo', [join(dir, 'config.json')]);
    for (const args of [
      ['status', '1'],
      ['profile', 'set', 'branch', 'dev'],
    ]) {
      const r = await runCli(args, { env: fullEnv(dir), timeoutMs: 8_000 });
      expect(r.exitCode).toBe(7);
      expect(r.stderr).toContain(`the config file ${join(dir, 'config.json')} is a FIFO, not a regular file`);
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('a directory there is refused the same way', async () => {
    const dir = configDirWithKey();
    mkdirSync(join(dir, 'config.json'));
    const r = await runCli(['status', '1'], { env: fullEnv(dir), timeoutMs: 8_000 });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain('is a directory, not a regular file');
  });
});

describe('a corrupt config file', () => {
  const text = '{"profiles": {"default": {"token": ';
  function corrupt(): string {
    const dir = configDirWithKey();
    writeFileSync(join(dir, 'config.json'), text);
    return dir;
  }

  it('does not block a command that gets everything from flags and environment: a warning, then the answer', async () => {
    const dir = corrupt();
    const r = await runCli(['status', '1', '--json'], { env: fullEnv(dir) });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(
      `mq: warning: the config file ${join(dir, 'config.json')} is not valid JSON; going on without it\n`,
    );
    expect(JSON.parse(r.stdout)).toMatchObject({ state: 'pending' });
    expect(fake.requests[0]?.headers['x-api-token']).toBe(TOKEN);
  });

  it('commands that must write it refuse with exit 7 and leave it untouched', async () => {
    const dir = corrupt();
    for (const args of [
      ['profile', 'set', 'branch', 'dev'],
      ['auth', 'logout'],
      ['profile', 'use', 'default'],
    ]) {
      const r = await runCli(args, { env: fullEnv(dir) });
      expect(r.exitCode).toBe(7);
      expect(r.stderr).toContain('is not valid JSON');
    }
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(text);
    expect(entries(dir)).toEqual(['config.json']);
  });
});

/** A small tmpfs of our own (we are root in CI); undefined when this machine cannot mount one. */
function mountTmpfs(options: string): { dir: string; unmount: () => void } | undefined {
  const dir = tempDir('mq-tmpfs-');
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) return undefined;
  return { dir, unmount: () => void spawnSync('umount', ['-l', dir]) };
}

const probe = mountTmpfs('size=64k');
probe?.unmount();
const CANNOT_MOUNT =
  'cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN): the full-disk and read-only cases are skipped';
if (!probe) console.warn(CANNOT_MOUNT);

describe.skipIf(!probe)('on a full disk (a 64 KiB tmpfs)', () => {
  const mounts: Array<{ dir: string; unmount: () => void }> = [];
  afterAll(() => {
    for (const m of mounts) m.unmount();
  });

  /** A config dir on a tmpfs of its own with a saved profile, then the disk filled up to `freePages` free pages. */
  async function fullDisk(freePages: number): Promise<{ dir: string; before: string }> {
    const fs = mountTmpfs('size=64k');
    if (!fs) throw new Error(CANNOT_MOUNT);
    mounts.push(fs);
    const dir = join(fs.dir, 'mq');
    const env = { ...baseEnv(), MQ_CONFIG_DIR: dir };
    expect((await runCli(['profile', 'set', 'branch', 'main'], { env })).exitCode).toBe(0);
    const st = statfsSync(fs.dir);
    const free = st.bavail * st.bsize - freePages * 4096;
    if (free > 0) writeFileSync(join(fs.dir, 'filler'), Buffer.alloc(free));
    expect(statfsSync(fs.dir).bavail * statfsSync(fs.dir).bsize).toBe(freePages * 4096);
    return { dir, before: readFileSync(join(dir, 'config.json'), 'utf8') };
  }

  // No page free: the lock cannot record its owner. One page: the lock can, the new file cannot.
  for (const freePages of [0, 1]) {
    it(`a failed write (${freePages} page${freePages === 1 ? '' : 's'} free) is exit 7, leaves no lock and no temporary file, and the file unchanged`, async () => {
      const { dir, before } = await fullDisk(freePages);
      const r = await runCli(['profile', 'set', 'branch', 'a-much-longer-branch-name'.repeat(20)], {
        env: { ...baseEnv(), MQ_CONFIG_DIR: dir },
      });
      expect(r.exitCode).toBe(7);
      expect(r.stderr).toMatch(/ENOSPC/);
      expect(entries(dir)).toEqual(['config.json']);
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
      // Space again: the next write goes through (nothing was left locked).
      rmSync(join(dir, '..', 'filler'));
      expect(
        (await runCli(['profile', 'set', 'branch', 'dev'], { env: { ...baseEnv(), MQ_CONFIG_DIR: dir } })).exitCode,
      ).toBe(0);
    });
  }
});

describe.skipIf(!probe)('on a read-only file system', () => {
  let fs: { dir: string; unmount: () => void };
  beforeAll(() => {
    fs = mountTmpfs('ro,size=64k') as typeof fs;
  });
  afterAll(() => fs?.unmount());

  it('without a config directory: saving is exit 7 naming the directory; reading commands run', async () => {
    const dir = join(fs.dir, 'mq');
    const login = await runCli(['--api-url', fake.url, 'auth', 'login', '--with-token'], {
      env: { ...baseEnv(), MQ_CONFIG_DIR: dir },
      input: `${TOKEN}\n`,
    });
    expect(login.exitCode).toBe(7);
    expect(login.stderr).toContain(`cannot create the config directory ${dir} (EROFS)`);
    const status = await runCli(['status', '1'], { env: fullEnv(dir) });
    expect(status.exitCode).toBe(0);
    expect(existsSync(dir)).toBe(false);
  });
});
