/** Headless Chromium for the HTML report tests: the browser found on PATH (or undefined), and one run of it. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function findChromium(): string | undefined {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim() !== '') return r.stdout.trim();
  }
  return undefined;
}

export const CHROMIUM = findChromium();

/** Runs Chromium headless with a fresh profile and no background networking; returns its stdout. */
export function chromium(args: string[]): string {
  const profile = mkdtempSync(join(tmpdir(), 'mq-chromium-'));
  const r = spawnSync(
    CHROMIUM as string,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      `--user-data-dir=${profile}`,
      ...args,
    ],
    { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
  );
  if (r.status !== 0) throw new Error(`chromium failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}
