// Repository and branch inferred from `.git` directly (spawning `git` costs more than the whole start-up).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** The directory holding `config` for the repository containing `cwd`, if any. */
export function findGitDir(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, '.git');
    if (existsSync(candidate)) {
      if (statSync(candidate).isDirectory()) return candidate;
      // A worktree or submodule: `.git` is a file pointing at the real directory.
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(candidate, 'utf8'));
      if (m?.[1]) {
        const target = m[1].trim();
        const gitDir = isAbsolute(target) ? target : resolve(dir, target);
        const common = join(gitDir, 'commondir');
        if (existsSync(common)) return resolve(gitDir, readFileSync(common, 'utf8').trim());
        return gitDir;
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The URL of remote `origin` from a git config text. */
export function originUrl(configText: string): string | undefined {
  let inOrigin = false;
  for (const line of configText.split(/\r?\n/)) {
    const section = /^\s*\[\s*([^\]]+?)\s*\]/.exec(line);
    if (section?.[1]) {
      inOrigin = /^remote\s+"origin"$/.test(section[1]);
      continue;
    }
    const kv = /^\s*url\s*=\s*(.+?)\s*$/.exec(line);
    if (inOrigin && kv?.[1]) return kv[1].replace(/^"|"$/g, '');
  }
  return undefined;
}

/** `host/owner/name` from an ssh (`git@host:owner/name.git`, `ssh://git@host/owner/name`) or https remote URL. */
export function repoFromRemote(url: string): string | undefined {
  const m = url.includes('://')
    ? /^[a-z+]+:\/\/(?:[^@/]+@)?([^/:]+)(?::\d+)?\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/i.exec(url)
    : /^(?:[^@/]+@)?([^:/]+):([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url);
  return m ? `${m[1]}/${m[2]}/${m[3]}` : undefined;
}

export interface GitFacts {
  repo?: string;
  defaultBranch?: string;
  /** The directory is inside a git working copy. */
  inRepo?: boolean;
  /** The working copy has a remote `origin` (whatever its URL). */
  hasOrigin?: boolean;
}

export function readGitFacts(cwd: string): GitFacts {
  const gitDir = findGitDir(cwd);
  if (!gitDir) return {};
  const facts: GitFacts = { inRepo: true, hasOrigin: false };
  try {
    const url = originUrl(readFileSync(join(gitDir, 'config'), 'utf8'));
    if (url) {
      facts.hasOrigin = true;
      facts.repo = repoFromRemote(url);
    }
  } catch {
    // no readable config: nothing to infer
  }
  try {
    const head = readFileSync(join(gitDir, 'refs', 'remotes', 'origin', 'HEAD'), 'utf8');
    const m = /^ref:\s*refs\/remotes\/origin\/(.+?)\s*$/m.exec(head);
    if (m?.[1]) facts.defaultBranch = m[1];
  } catch {
    // origin/HEAD not recorded (e.g. `git init` + `remote add` without fetch)
  }
  return facts;
}
