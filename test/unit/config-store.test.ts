import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProfileName, ProfileStore, quoteName } from '../../src/config/store.js';

function storeWith(text?: string): { store: ProfileStore; warnings: string[]; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mq-store-'));
  if (text !== undefined) writeFileSync(join(dir, 'config.json'), text);
  const warnings: string[] = [];
  const store = new ProfileStore(dir, (line) => warnings.push(line));
  return { store, warnings, path: store.path };
}

describe('the profile store', () => {
  it('profiles have no prototype: __proto__, constructor and toString are not profiles', () => {
    const { store, warnings } = storeWith('{"profiles": {"__proto__": {"token": "evil"}, "work": {"token": "t"}}}');
    const data = store.read();
    expect(Object.getPrototypeOf(data.profiles)).toBeNull();
    expect(Object.keys(data.profiles)).toEqual(['work']);
    expect(data.profiles.constructor).toBeUndefined();
    expect(data.profiles.toString).toBeUndefined();
    expect(({} as { token?: string }).token).toBeUndefined(); // Object.prototype untouched
    expect(warnings).toEqual([expect.stringContaining('has a profile name "__proto__" that is not allowed')]);
  });

  it('reports each ignored entry once per process', () => {
    const text = '{"profiles": {"bad name here": {}}}';
    const a = storeWith(text);
    a.store.read();
    a.store.read();
    expect(a.warnings).toHaveLength(1);
  });

  it('a corrupt file: strict read throws exit 7, lenient read warns and returns no profiles', () => {
    const { store, warnings, path } = storeWith('{"profiles": ');
    expect(() => store.read()).toThrow(
      expect.objectContaining({ exitCode: 7, why: `the config file ${path} is not valid JSON` }),
    );
    expect(Object.keys(store.read({ lenient: true }).profiles)).toEqual([]);
    expect(warnings).toEqual([`mq: warning: the config file ${path} is not valid JSON; going on without it\n`]);
  });

  it('a FIFO is refused even when reading leniently, without blocking', () => {
    const { store, path } = storeWith();
    execFileSync('mkfifo', [path]);
    expect(() => store.read({ lenient: true })).toThrow('is a FIFO, not a regular file');
  });

  it('update keeps ignored entries and unknown keys as they were', async () => {
    const { store, path } = storeWith(
      JSON.stringify({
        version: 3,
        activeProfile: 'x y',
        profiles: { 'x y': { token: 'keep' }, ok: { repo: 'a/b', extra: 1 } },
      }),
    );
    await store.update((data) => {
      (data.profiles.ok as { branch?: string }).branch = 'dev';
    });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      version: 3,
      activeProfile: 'x y',
      profiles: { 'x y': { token: 'keep' }, ok: { repo: 'a/b', extra: 1, branch: 'dev' } },
    });
  });

  it('names are shown escaped', () => {
    expect(quoteName('a\u001b[31mb')).toBe('"a\\u{1b}[31mb"');
    expect(quoteName('say "hi"\u202e')).toBe('"say \\"hi\\"\\u{202e}"');
    expect(isProfileName('a'.repeat(64))).toBe(true);
    expect(isProfileName('a'.repeat(65))).toBe(false);
  });

  it('a write goes through conf: mode 0600 whatever the old mode, two-space JSON and a newline', async () => {
    const { store, path } = storeWith('{"profiles": {"work": {"repo": "o/r"}}}');
    chmodSync(path, 0o644);
    await store.update((data) => {
      data.profiles.work = { ...data.profiles.work, branch: 'dev' };
    });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe(
      '{\n  "profiles": {\n    "work": {\n      "repo": "o/r",\n      "branch": "dev"\n    }\n  }\n}\n',
    );
  });

  it('a write removes the temporary files of a writer killed mid-write, and nothing else', async () => {
    const { store, path } = storeWith('{"profiles": {}}');
    const dir = join(path, '..');
    writeFileSync(join(dir, 'config.json.tmp-1763900000012abc'), '{"partial');
    writeFileSync(join(dir, 'config.json.tmp-mine'), 'kept');
    mkdirSync(join(dir, 'config.json.tmp-17639000000123ab'));
    await store.update((data) => {
      data.activeProfile = 'work';
    });
    expect(readdirSync(dir).sort()).toEqual([
      'config.json',
      'config.json.tmp-17639000000123ab',
      'config.json.tmp-mine',
    ]);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ profiles: {}, activeProfile: 'work' });
  });
});
