/**
 * README snippets run as written, in order. A shell block preceded by `<!-- runnable -->` is part of
 * one bash script (so exports carry from block to block); `<!-- runnable: expect "TEXT" -->` also
 * requires TEXT in that block's output. `mq` on PATH is the built bin/mq.js; the script runs in a
 * scratch directory with a private config and home, and whatever it left running is stopped.
 */
import { chmodSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir } from '../helpers/run-cli.js';

interface Snippet {
  line: number;
  code: string;
  expect?: string;
}

function runnableSnippets(markdown: string): Snippet[] {
  const lines = markdown.split('\n');
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = /^<!--\s*runnable(?::\s*expect\s+"([^"]*)")?\s*-->$/.exec(lines[i]?.trim() ?? '');
    if (!marker) continue;
    const fence = i + 1;
    if (!/^```(sh|bash)\s*$/.test(lines[fence] ?? ''))
      throw new Error(`README.md:${i + 1}: a runnable marker must be followed by a sh block`);
    const body: string[] = [];
    let j = fence + 1;
    for (; j < lines.length && lines[j] !== '```'; j++) body.push(lines[j] as string);
    snippets.push({
      line: fence + 1,
      code: body.join('\n'),
      ...(marker[1] !== undefined ? { expect: marker[1] } : {}),
    });
    i = j;
  }
  return snippets;
}

const README = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');

describe('README snippets', () => {
  const snippets = runnableSnippets(README);

  it('marks the emulator guide and the CI rehearsal as runnable', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(2);
    expect(snippets.some((s) => s.code.includes('mq emulator start') && s.code.includes('--clock manual'))).toBe(true);
  });

  it('runs every marked block in order against the emulator', { timeout: 60_000 }, async () => {
    const bin = tempDir('mq-readme-bin-');
    symlinkSync(BIN, join(bin, 'mq'));
    chmodSync(BIN, 0o755);
    const parts = ["trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null' EXIT"];
    snippets.forEach((s, i) => {
      parts.push(`echo "::block ${i} start"`, s.code, `echo "::block ${i} exit $?"`);
    });
    const script = join(tempDir('mq-readme-'), 'readme.sh');
    writeFileSync(script, `${parts.join('\n')}\n`);
    const home = tempDir('mq-readme-home-');
    const result = await execa('bash', [script], {
      cwd: tempDir('mq-readme-cwd-'),
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        HOME: home,
        MQ_CONFIG_DIR: join(home, '.config', 'mq'),
        NO_COLOR: '1',
        FORCE_COLOR: '0',
      },
      extendEnv: false,
      reject: false,
      timeout: 50_000,
      all: true,
    });
    const out = String(result.all);
    snippets.forEach((s, i) => {
      const start = out.indexOf(`::block ${i} start`);
      const end = out.indexOf(`::block ${i} exit `);
      expect(start, `block at README.md:${s.line} did not start\n${out}`).toBeGreaterThanOrEqual(0);
      expect(end, `block at README.md:${s.line} did not finish\n${out}`).toBeGreaterThan(start);
      const status = /::block \d+ exit (\d+)/.exec(out.slice(end))?.[1];
      const text = out.slice(start, end);
      expect(status, `block at README.md:${s.line} ended with exit ${status}:\n${text}`).toBe('0');
      expect(text, `block at README.md:${s.line}`).not.toMatch(/^mq: /m);
      if (s.expect !== undefined) expect(text, `block at README.md:${s.line}`).toContain(s.expect);
    });
  });
});
