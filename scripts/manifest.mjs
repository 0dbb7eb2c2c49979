// Regenerates src/commands/manifest.ts (the root's list of top-level commands: name, aliases,
// summary, help term) from the fully built command tree of dist/, then rebuilds dist/ if it
// changed. Run by `npm run completions`; test/unit/command-manifest.test.ts fails when it is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const FILE = new URL('../src/commands/manifest.ts', import.meta.url);
const { commandManifest } = createRequire(import.meta.url)('../dist/main.cjs').cli();
const entries = await commandManifest();
const text = `/**
 * The top-level commands as the root program shows them without loading them (see program.ts).
 * Generated from the full command tree by \`npm run completions\` (scripts/manifest.mjs): do not edit.
 */
export interface CommandEntry {
  name: string;
  aliases: string[];
  /** What the root's help lists: the summary, else the description. */
  summary: string;
  /** The root's help term: name, first alias, [options], arguments. */
  term: string;
  helpGroup?: string;
  /** A group's subcommands (for the groups that build only the one a command line names). */
  subcommands?: CommandEntry[];
}

export const COMMAND_MANIFEST: readonly CommandEntry[] = ${JSON.stringify(entries, null, 2)};
`;
let old = '';
try {
  old = readFileSync(FILE, 'utf8');
} catch {}
writeFileSync(FILE, text);
const { execFileSync } = await import('node:child_process');
execFileSync('npx', ['biome', 'format', '--write', 'src/commands/manifest.ts'], { stdio: 'inherit' });
if (readFileSync(FILE, 'utf8') !== old) {
  console.log('wrote src/commands/manifest.ts; rebuilding dist/');
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
} else {
  console.log('src/commands/manifest.ts is up to date');
}
