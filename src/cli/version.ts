// `mq --version [--json]`, answered by main.ts before the CLI loads (and by run.ts); no imports.

/** What argv asks about the version: `plain` (`--version` alone), `json` (with --json or -o json), else null. */
export function versionRequest(argv: readonly string[]): 'plain' | 'json' | null {
  const i = argv.findIndex((a) => a === '--version' || a === '-V');
  if (i < 0) return null;
  const rest = argv.filter((_, j) => j !== i);
  if (rest.length === 0) return 'plain';
  if (rest.length === 1 && (rest[0] === '--json' || rest[0] === '-ojson' || rest[0] === '--output=json')) return 'json';
  if (rest.length === 2 && (rest[0] === '-o' || rest[0] === '--output') && rest[1] === 'json') return 'json';
  return null;
}

/** The npm package's name (package.json). */
export const PACKAGE_NAME = 'mq-cli';

/** The --version --json document: the package, its version, and the Node.js it runs on. */
export function versionDocument(version: string): {
  name: string;
  version: string;
  node: string;
  platform: string;
  arch: string;
} {
  return { name: PACKAGE_NAME, version, node: process.versions.node, platform: process.platform, arch: process.arch };
}

export function versionText(version: string, kind: 'plain' | 'json'): string {
  return kind === 'plain' ? `${version}\n` : `${JSON.stringify(versionDocument(version), null, 2)}\n`;
}
