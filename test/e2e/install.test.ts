/**
 * The package as a user installs it: `npm pack` of the built tree, installed into a scratch global
 * prefix with no network and no dev dependencies, then `mq` run from that prefix.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { baseEnv, tempDir, TOKEN } from '../helpers/run-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
  dependencies?: object;
};

describe('npm pack, then npm install -g of the tarball', { timeout: 60_000 }, () => {
  let prefix: string;
  let installLog: string;
  let packed: { files: Array<{ path: string }> } | undefined;
  let server: FakeServer;

  beforeAll(async () => {
    const dest = tempDir('mq-pack-');
    // dist/ was built by `npm test`; --ignore-scripts keeps prepack from rebuilding it under running tests.
    const pack = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dest], { cwd: ROOT });
    [packed] = JSON.parse(pack.stdout) as Array<{ files: Array<{ path: string }> }>;
    const tarball = join(dest, `mq-cli-${PKG.version}.tgz`);
    prefix = tempDir('mq-prefix-');
    const install = await execa(
      'npm',
      ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball],
      {
        cwd: dest,
        env: { npm_config_cache: tempDir('mq-npm-cache-') },
        all: true,
      },
    );
    installLog = String(install.all);
    server = await startFakeServer();
  }, 60_000);
  afterAll(async () => server?.close());

  it('ships the bundle and no install-time build: no prepare or install scripts, no runtime dependencies', () => {
    const paths = (packed?.files ?? []).map((f) => f.path);
    expect(paths).toContain('dist/main.cjs');
    expect(paths).toContain('bin/package.json');
    expect(paths).toContain('bin/mq.js');
    expect(paths.some((p) => p.startsWith('src/') || p.startsWith('test/'))).toBe(false);
    for (const hook of ['prepare', 'preinstall', 'install', 'postinstall'])
      expect(PKG.scripts[hook], hook).toBeUndefined();
    expect(PKG.dependencies ?? {}).toEqual({});
    expect(installLog).not.toMatch(/install-scripts|prepare|EBADENGINE/);
  });

  it('runs mq --version and an API command from the installed prefix', async () => {
    const mq = join(prefix, 'bin', 'mq');
    expect(existsSync(mq)).toBe(true);
    const version = await execa(mq, ['--version'], { env: baseEnv(), extendEnv: false, reject: false });
    expect(version.stdout.trim()).toBe(PKG.version);
    server.on('POST /getSubmittedPullRequest', {
      status: 200,
      body: { prNumber: 42, state: 'pending', isCurrentlySubmittedToQueue: true },
    });
    const status = await execa(mq, ['status', '42', '--json'], {
      env: baseEnv(server.url),
      extendEnv: false,
      reject: false,
    });
    expect(status.exitCode).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ prNumber: 42, state: 'pending' });
    // The PR's record (the queue is read beside it, for its position).
    const sent = server.requests.find((r) => r.path === '/getSubmittedPullRequest');
    expect(sent?.path).toBe('/getSubmittedPullRequest');
    expect(sent?.headers['x-api-token']).toBe(TOKEN);
  });
});
