// The profile store: `config.json` (0600, in a 0700 dir). Reads parse it directly (cheap start-up);
// writes go through write.ts (locked, atomic). An unreadable file: writers refuse (exit 7), readers
// warn and go on; a special file (a FIFO would block) is always refused; bad entries are reported,
// ignored and kept on rewrite. Profiles have no prototype, so `__proto__` is an ordinary name.
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { configDirOf } from './dir.js';

export interface Profile {
  apiUrl?: string;
  /** v1, v2 or auto. */
  api?: string;
  token?: string;
  repo?: string;
  branch?: string;
}

export interface ConfigData {
  activeProfile?: string;
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';
const PROFILE_KEYS = ['apiUrl', 'api', 'token', 'repo', 'branch'] as const;
/** The largest config file mq reads; a real one is a few hundred bytes. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** What a profile may be called: it is typed on command lines and offered by shell completion. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function isProfileName(name: string): boolean {
  return PROFILE_NAME.test(name);
}

/** A name as it may be shown: quoted, with anything but printable ASCII escaped (no terminal tricks). */
export function quoteName(name: string): string {
  const shown = name.length > 80 ? `${name.slice(0, 80)}…` : name;
  return `"${shown.replace(/[^\x20-\x7e]|["\\]/gu, escapeInName)}"`;
}

function escapeInName(c: string): string {
  return c === '"' || c === '\\' ? `\\${c}` : `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`;
}

export function configDir(env: NodeJS.ProcessEnv): string {
  return configDirOf(env, homedir);
}

function invalid(path: string, why: string): ConfigError {
  return new ConfigError(`the config file ${path} ${why}`, {
    hints: ['fix or remove the file by hand; mq leaves it as it is', 'or point MQ_CONFIG_DIR at another directory'],
  });
}

/** A problem of the whole file that a reading command may step over (unlike a special file). */
const UNUSABLE = Symbol('mq.unusableConfig');
function unusable(path: string, why: string): ConfigError {
  return Object.assign(invalid(path, why), { [UNUSABLE]: true });
}
function isUnusable(err: unknown): err is ConfigError {
  return err instanceof ConfigError && (err as { [UNUSABLE]?: boolean })[UNUSABLE] === true;
}

interface Loaded {
  data: ConfigData;
  /** The file's object as parsed (top-level keys mq does not know are kept when rewriting). */
  raw: Record<string, unknown>;
  /** Entries that were ignored, as they were, to be written back unchanged. */
  ignoredProfiles: Record<string, unknown>;
  warnings: string[];
}

function emptyProfiles(): Record<string, Profile> {
  return Object.create(null) as Record<string, Profile>;
}

function check(raw: unknown, path: string): Loaded {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw unusable(path, 'is not a JSON object');
  const obj = raw as Record<string, unknown>;
  const warnings: string[] = [];
  const profilesRaw = obj.profiles ?? {};
  if (!profilesRaw || typeof profilesRaw !== 'object' || Array.isArray(profilesRaw)) {
    throw unusable(path, 'has a "profiles" entry that is not an object');
  }
  const profiles = emptyProfiles();
  const ignoredProfiles: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [name, p] of Object.entries(profilesRaw as Record<string, unknown>)) {
    let why: string | undefined;
    if (!isProfileName(name))
      why = `has a profile name ${quoteName(name)} that is not allowed (letters, digits, _ . -; at most 64)`;
    else if (!p || typeof p !== 'object' || Array.isArray(p)) why = `has a profile "${name}" that is not an object`;
    else {
      const bad = PROFILE_KEYS.find((key) => {
        const v = (p as Record<string, unknown>)[key];
        return v !== undefined && typeof v !== 'string';
      });
      if (bad) why = `has a non-string "${bad}" in profile "${name}"`;
    }
    if (why) {
      warnings.push(`the config file ${path} ${why}; ignoring that profile`);
      ignoredProfiles[name] = p;
      continue;
    }
    const profile: Profile = {};
    for (const key of PROFILE_KEYS) {
      const v = (p as Record<string, unknown>)[key];
      if (typeof v === 'string') profile[key] = v;
    }
    // Keys mq does not know stay in the file.
    profiles[name] = { ...(p as object), ...profile };
  }
  let activeProfile: string | undefined;
  if (obj.activeProfile !== undefined) {
    if (typeof obj.activeProfile === 'string' && isProfileName(obj.activeProfile)) activeProfile = obj.activeProfile;
    else {
      const shown =
        typeof obj.activeProfile === 'string' ? quoteName(obj.activeProfile) : `a ${typeof obj.activeProfile}`;
      warnings.push(
        `the config file ${path} has an "activeProfile" that is not a profile name (${shown}); ignoring it`,
      );
    }
  }
  return { data: { activeProfile, profiles }, raw: obj, ignoredProfiles, warnings };
}

function mkdirError(dir: string): string | undefined {
  try {
    mkdirSync(dir, { mode: 0o700 });
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code;
  }
}

/** Warnings already printed by this process (a command may read the file more than once). */
const warned = new Set<string>();

export class ProfileStore {
  readonly dir: string;
  readonly path: string;
  private readonly warn: (line: string) => void;

  /** `warn` receives one line per ignored entry (printed once per process). */
  constructor(dir: string, warn: (line: string) => void = () => {}) {
    this.dir = dir;
    this.path = join(dir, 'config.json');
    this.warn = warn;
  }

  private report(message: string): void {
    if (warned.has(message)) return;
    warned.add(message);
    this.warn(`mq: warning: ${message}\n`);
  }

  /** The file's text, or undefined when there is none. Never blocks on a FIFO or device. */
  private readText(): string | undefined {
    let fd: number;
    try {
      fd = openSync(this.path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      throw unusable(this.path, `cannot be read (${code ?? (err as Error).message})`);
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) {
        const kind = st.isFIFO()
          ? 'a FIFO'
          : st.isDirectory()
            ? 'a directory'
            : st.isSocket()
              ? 'a socket'
              : 'a device';
        throw invalid(this.path, `is ${kind}, not a regular file`);
      }
      if (st.size > MAX_CONFIG_BYTES) throw unusable(this.path, 'is larger than 1 MiB');
      return readFileSync(fd, 'utf8');
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      throw unusable(this.path, `cannot be read (${code ?? (err as Error).message})`);
    } finally {
      closeSync(fd);
    }
  }

  private load(): Loaded {
    const text = this.readText();
    if (text === undefined) return { data: { profiles: emptyProfiles() }, raw: {}, ignoredProfiles: {}, warnings: [] };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw unusable(this.path, 'is not valid JSON');
    }
    return check(parsed, this.path);
  }

  /** The profiles; an unusable file is exit 7 unless `lenient` (then a warning); a special file always is. */
  read(options: { lenient?: boolean } = {}): ConfigData {
    let loaded: Loaded;
    try {
      loaded = this.load();
    } catch (err) {
      if (options.lenient && isUnusable(err)) {
        this.report(`${err.why}; going on without it`);
        return { profiles: emptyProfiles() };
      }
      throw err;
    }
    for (const w of loaded.warnings) this.report(w);
    return loaded.data;
  }

  /** Read-modify-write under the lock (the mutator may throw); an unusable file is never rewritten. */
  async update<T>(mutate: (data: ConfigData) => T): Promise<T> {
    const { lockConfig, writeConfig } = await import('./write.js');
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      let code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      // A recursive mkdir reports ENOENT for a parent it could not create; ask once more for the real reason.
      if (code === 'ENOENT') code = mkdirError(this.dir) ?? code;
      throw new ConfigError(`cannot create the config directory ${this.dir} (${code})`, {
        hints: ['point MQ_CONFIG_DIR at a writable directory', 'or use MQ_TOKEN and MQ_API_URL instead of a profile'],
      });
    }
    const release = await lockConfig(this.path);
    try {
      const loaded = this.load();
      for (const w of loaded.warnings) this.report(w);
      const result = mutate(loaded.data);
      const profiles: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      Object.assign(profiles, loaded.ignoredProfiles, loaded.data.profiles);
      const doc: Record<string, unknown> = { ...loaded.raw, profiles };
      if (loaded.data.activeProfile !== undefined) doc.activeProfile = loaded.data.activeProfile;
      else if (
        loaded.raw.activeProfile === undefined ||
        (typeof loaded.raw.activeProfile === 'string' && isProfileName(loaded.raw.activeProfile))
      )
        delete doc.activeProfile;
      writeConfig(this.path, doc);
      return result;
    } finally {
      await release();
    }
  }
}
