/**
 * The engine's layering (issue 12.5): src/emulator/engine imports nothing outside itself but the
 * neutral src/domain (no package, no Node module, no server code), and nothing in src/emulator
 * imports in a circle.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/emulator');
const domain = resolve(root, '../domain');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

/** Import and re-export specifiers of a module, with whether they are type-only. */
function imports(file: string): Array<{ spec: string; typeOnly: boolean }> {
  const src = readFileSync(file, 'utf8');
  const out: Array<{ spec: string; typeOnly: boolean }> = [];
  for (const m of src.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?'([^']+)'/gm)) {
    out.push({ spec: m[2] as string, typeOnly: m[1] !== undefined });
  }
  return out;
}

describe('engine layering', () => {
  it('the engine imports only its own modules and src/domain', () => {
    const engine = join(root, 'engine');
    const outside: string[] = [];
    for (const f of files(engine)) {
      for (const { spec } of imports(f)) {
        const inDomain = spec.startsWith('../../domain/') && dirname(resolve(dirname(f), spec)) === domain;
        if (!spec.startsWith('./') && !inDomain) outside.push(`${relative(root, f)} imports ${spec}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it('no module of the emulator imports in a circle', () => {
    const all = files(root);
    const graph = new Map<string, string[]>();
    for (const f of all) {
      const deps = imports(f)
        .filter((i) => !i.typeOnly && i.spec.startsWith('.'))
        .map((i) => resolve(dirname(f), i.spec.replace(/\.js$/, '.ts')))
        .filter((d) => graph.has(d) || all.includes(d));
      graph.set(f, deps);
    }
    const cycles: string[] = [];
    const state = new Map<string, 1 | 2>();
    const stack: string[] = [];
    const visit = (f: string): void => {
      state.set(f, 1);
      stack.push(f);
      for (const d of graph.get(f) ?? []) {
        if (state.get(d) === 1)
          cycles.push([...stack.slice(stack.indexOf(d)), d].map((x) => relative(root, x)).join(' -> '));
        else if (!state.has(d)) visit(d);
      }
      stack.pop();
      state.set(f, 2);
    };
    for (const f of all) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });
});
