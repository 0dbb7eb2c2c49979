/** The service vocabulary is defined once (src/domain/vocabulary.ts); the rest imports it. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_U32 } from '../../src/domain/vocabulary.js';

const SRC = join(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('MAX_U32', () => {
  it('is the largest uint32, written in code in one place only', () => {
    expect(MAX_U32).toBe(2 ** 32 - 1);
    // The literal in code (comments aside): only the vocabulary module defines it.
    const literal = /^(?!\s*(\/\/|\*|\/\*)).*\b4_?294_?967_?295\b/m;
    const found = sources(SRC)
      .filter((f) => literal.test(readFileSync(f, 'utf8')))
      .map((f) => f.slice(SRC.length + 1));
    expect(found).toEqual(['domain/vocabulary.ts']);
  });
});
