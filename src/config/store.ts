/**
 * The profile store: one JSON file (`config.json`, mode 0600, in a 0700 directory) holding named
 * profiles. Reads parse the file directly, which keeps `conf` (and its validator) off the start-up
 * path of every command; writes go through `conf` (atomic replace, file mode) under a lock file, so
 * two `mq` processes saving profiles at once both keep their change. A file that does not parse is
 * reported with its path and never rewritten.
 */
import { closeSync, constants, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';

export interface Profile {
  apiUrl?: string;
  token?: string;
  repo?: string;
  branch?: string;
}

export interface ConfigData {
  activeProfile?: string;
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';
const PROFILE_KEYS = ['apiUrl', 'token', 'repo', 'branch'] as const;

export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.MQ_CONFIG_DIR) return env.MQ_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'mq');
}

function invalid(path: string, why: string): ConfigError {
  return new ConfigError(`the config file ${path} ${why}`, {
    hints: ['fix or remove the file by hand; mq leaves it as it is', 'or point MQ_CONFIG_DIR at another directory'],
  });
}

function validate(raw: unknown, path: string): ConfigData {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalid(path, 'is not a JSON object');
  const obj = raw as Record<string, unknown>;
  if (obj.activeProfile !== undefined && typeof obj.activeProfile !== 'string') throw invalid(path, 'has a non-string "activeProfile"');
  const profiles = obj.profiles ?? {};
  if (!profiles || typeof profiles !== 'object' || Array.isArray(profiles)) throw invalid(path, 'has a "profiles" entry that is not an object');
  for (const [name, p] of Object.entries(profiles as Record<string, unknown>)) {
    if (!p || typeof p !== 'object' || Array.isArray(p)) throw invalid(path, `has a profile "${name}" that is not an object`);
    for (const key of PROFILE_KEYS) {
      const v = (p as Record<string, unknown>)[key];
      if (v !== undefined && typeof v !== 'string') throw invalid(path, `has a non-string "${key}" in profile "${name}"`);
    }
  }
  return { ...(obj as object), activeProfile: obj.activeProfile as string | undefined, profiles: profiles as Record<string, Profile> };
}

export class ProfileStore {
  readonly dir: string;
  readonly path: string;

  constructor(dir: string) {
    this.dir = dir;
    this.path = join(dir, 'config.json');
  }

  read(): ConfigData {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { profiles: {} };
      throw invalid(this.path, `cannot be read (${code ?? (err as Error).message})`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalid(this.path, 'is not valid JSON');
    }
    return validate(parsed, this.path);
  }

  /** Read-modify-write under the lock. The mutator may throw to abandon the change. */
  async update<T>(mutate: (data: ConfigData) => T): Promise<T> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const release = await this.lock();
    try {
      const data = this.read();
      const result = mutate(data);
      const { default: Conf } = await import('conf');
      const conf = new Conf<Record<string, unknown>>({
        cwd: this.dir,
        configName: 'config',
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: false,
      });
      conf.store = data as unknown as Record<string, unknown>;
      return result;
    } finally {
      release();
    }
  }

  /** An exclusive lock file; a lock older than 10 s is taken to be left by a crashed process. */
  private async lock(): Promise<() => void> {
    const lockPath = `${this.path}.lock`;
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        const fd = openSync(lockPath, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
        writeSync(fd, String(process.pid));
        closeSync(fd);
        return () => {
          try {
            unlinkSync(lockPath);
          } catch {
            // already gone
          }
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw invalid(this.path, `cannot be locked (${(err as NodeJS.ErrnoException).code})`);
        try {
          if (Date.now() - statSync(lockPath).mtimeMs > 10_000) unlinkSync(lockPath);
        } catch {
          // raced with its owner removing it
        }
        if (Date.now() > deadline) throw invalid(this.path, `is locked by another mq process (${lockPath})`);
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
      }
    }
  }
}
