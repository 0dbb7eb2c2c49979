import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, runCli } from '../../../helpers/run-cli.js';
import { CHROMIUM, chromium, overlaps, svgTextBoxes } from '../../../helpers/chromium.js';
import { countColour, readPng } from '../../../helpers/png.js';
import { SMALL_SIMULATION } from '../../../helpers/simulate.js';

const count = (html: string, re: RegExp) => (html.match(re) ?? []).length;
const ROWS = 3;
const BAR_FIGURES = 8;
const QUANTILE_POINTS = 21;

describe.skipIf(CHROMIUM === undefined)(
  `--html report in headless Chromium${CHROMIUM === undefined ? ' (skipped: chromium is not installed)' : ''}`,
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'mq-sim-html-'));
    const file = join(dir, 'plan.html');

    beforeAll(async () => {
      const r = await runCli(
        [
          'queue',
          'simulate',
          ...SMALL_SIMULATION,
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
        if ((img.rgba[i] as number) < 240 || (img.rgba[i + 1] as number) < 240 || (img.rgba[i + 2] as number) < 240)
          nonWhite++;
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

    it('the axis labels are laid out, in the units of the table, and no two labels overlap', () => {
      const boxes = svgTextBoxes(file);
      const axis = boxes.filter((b) => b.cls.includes('axis'));
      // Each bar chart: 3 value ticks and a row number under each bar; the distribution: 5 ticks on each axis.
      expect(axis.length).toBe(BAR_FIGURES * (3 + ROWS) + 10);
      for (const b of axis) expect(b.w * b.h, b.text).toBeGreaterThan(0);
      expect(overlaps(boxes).map(([a, b]) => `${a.text} / ${b.text}`)).toEqual([]);
      const dom = chromium(['--dump-dom', `file://${file}`]);
      // The baseline falls behind at 6/h: its time to merge is in hours, and so is that chart's axis.
      expect(dom).toMatch(/Time to merge, p50 <span class="unit">\(hours\)<\/span>/);
      expect(dom).toMatch(/within x hours of submission/);
      expect(dom).toContain('* = best in column among the 2 rows that keep up');
    }, 90_000);
  },
);
