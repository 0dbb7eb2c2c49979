/**
 * The --html report in headless Chromium: the page renders (not blank: the bar colours of every row
 * are on screen) and the DOM holds one bar per row and figure and one point per row and quantile.
 * Skipped only when no Chromium is installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, runCli } from '../helpers/run-cli.js';
import { countColour, readPng } from '../helpers/png.js';

function findChromium(): string | undefined {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim() !== '') return r.stdout.trim();
  }
  return undefined;
}

const CHROMIUM = findChromium();

function chromium(args: string[]): string {
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

const count = (html: string, re: RegExp) => (html.match(re) ?? []).length;
const ROWS = 3;
const BAR_FIGURES = 8;
const QUANTILE_POINTS = 21;

describe.skipIf(CHROMIUM === undefined)(`--html report in headless Chromium${CHROMIUM === undefined ? ' (skipped: chromium is not installed)' : ''}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'mq-sim-html-'));
  const file = join(dir, 'plan.html');

  beforeAll(async () => {
    const r = await runCli(
      [
        'queue',
        'simulate',
        '--arrivals',
        '6/h',
        '--test-time',
        '30m',
        '--failure-rate',
        '5%',
        '--flake-rate',
        '2%',
        '--duration',
        '1d',
        '--runs',
        '3',
        '--compare',
        'concurrency=4',
        '--compare',
        'concurrency=2,batch=4',
        '--html',
        file,
      ],
      { env: baseEnv(), timeoutMs: 60_000 },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(file)).toBe(true);
  }, 90_000);

  it('is self-contained: no scripts, no external URLs, no web fonts', () => {
    const html = readFileSync(file, 'utf8');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@font-face|@import|url\(/i);
  });

  it('the rendered DOM has one bar per row and figure, and one point per row and quantile', () => {
    const dom = chromium(['--dump-dom', `file://${file}`]);
    expect(count(dom, /<rect class="bar"/g)).toBe(ROWS * BAR_FIGURES);
    expect(count(dom, /<line class="ci"/g)).toBe(ROWS * BAR_FIGURES);
    expect(count(dom, /<polyline class="cdf"/g)).toBe(ROWS);
    expect(count(dom, /<circle class="pt"/g)).toBe(ROWS * QUANTILE_POINTS);
    expect(dom).toContain('concurrency=2,batch=4');
  }, 90_000);

  it('the screenshot is not blank: every row colour is painted', () => {
    const png = join(dir, 'shot.png');
    chromium([`--screenshot=${png}`, '--window-size=1200,1800', `file://${file}`]);
    const img = readPng(readFileSync(png));
    expect(img.width).toBe(1200);
    let nonWhite = 0;
    for (let i = 0; i < img.rgba.length; i += 4)
      if ((img.rgba[i] as number) < 240 || (img.rgba[i + 1] as number) < 240 || (img.rgba[i + 2] as number) < 240) nonWhite++;
    expect(nonWhite / (img.width * img.height)).toBeGreaterThan(0.03);
    // The first three palette colours (rows 1..3): bars are solid blocks of them.
    for (const [r, g, b] of [
      [0x2b, 0x6c, 0xb0],
      [0xc0, 0x56, 0x21],
      [0x2f, 0x85, 0x5a],
    ] as const) {
      expect(countColour(img, [r, g, b], 8)).toBeGreaterThan(2000);
    }
  }, 90_000);
});
