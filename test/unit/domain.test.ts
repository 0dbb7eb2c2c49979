/**
 * src/domain/ is the neutral base the client, the emulator, the planner, stats and the Action share:
 * it imports nothing but its own modules (no project code, no packages, no Node built-ins).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const DOMAIN = join(import.meta.dirname, '../../src/domain');

/** Every module specifier a source names: static imports and re-exports, dynamic imports, requires. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\b(?:import|require)\s*\(\s*['"`]([^'"`]+)/g,
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) found.push(m[1] as string);
  return found;
}

describe('src/domain', () => {
  const files = readdirSync(DOMAIN).filter((f) => f.endsWith('.ts'));

  it('holds the vocabulary, the settings registry and the types', () => {
    expect(files).toEqual(expect.arrayContaining(['vocabulary.ts', 'queue-settings.ts', 'types.ts']));
  });

  it('imports nothing outside itself', () => {
    const outside: string[] = [];
    for (const f of files) {
      for (const s of specifiers(readFileSync(join(DOMAIN, f), 'utf8'))) {
        const target = resolve(DOMAIN, s.replace(/\.js$/, '.ts'));
        const inside = s.startsWith('./') && dirname(target) === DOMAIN && existsSync(target);
        if (!inside) outside.push(`${f} -> ${s}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it('catches each kind of import it looks for', () => {
    const text =
      "import { a } from '../api/x.js';\nexport type { b } from 'zod';\nimport 'node:fs';\nconst c = await import('../emulator/y.js');";
    expect(specifiers(text)).toEqual(['../api/x.js', 'zod', 'node:fs', '../emulator/y.js']);
  });
});
