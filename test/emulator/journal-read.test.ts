import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalCorruptError, readJournal } from '../../src/emulator/journal.js';

const line = (s: number) => `${JSON.stringify({ s, t: 1000 + s, k: 'tick' })}\n`;

function dir(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'mq-journal-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
  return d;
}

describe('reading the journal', () => {
  it('a crash left a torn line; after a restart that died before its snapshot, the next file follows it: the torn line is ignored', () => {
    // Crash mid-append in file 1 (record 3 never acknowledged), restart opens file 2 and reuses seq 3.
    const d = dir({ 'journal.1.log': `${line(1)}${line(2)}{"s":3,"t":10`, 'journal.2.log': `${line(3)}${line(4)}` });
    expect(readJournal(d, 0).map((r) => r.s)).toEqual([1, 2, 3, 4]);
  });

  it('a whole record without its newline was never acknowledged either, in whichever file it is', () => {
    const d = dir({ 'journal.1.log': `${line(1)}${line(2).trimEnd()}`, 'journal.2.log': line(2) });
    const records = readJournal(d, 0);
    expect(records.map((r) => r.s)).toEqual([1, 2]);
  });

  it('a broken line followed by more lines is corruption', () => {
    const d = dir({ 'journal.1.log': `${line(1)}{"s":2,"t"\n${line(3)}`, 'journal.2.log': line(4) });
    expect(() => readJournal(d, 0)).toThrow(JournalCorruptError);
  });
});
