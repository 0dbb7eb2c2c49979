import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeStats } from '../../src/stats/compute.js';
import type { ConcludedPr } from '../../src/stats/model.js';
import { histogram } from '../../src/views/charts.js';
import { htmlReport } from '../../src/views/stats-html.js';
import { groupedStatsFields } from '../../src/views/stats.js';
import { CHROMIUM, chromium } from '../helpers/chromium.js';
import { countColour, readPng } from '../helpers/png.js';

interface Box {
  cls: string;
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The page's SVG text boxes as Chromium lays them out: a copy of the page with a script that writes them into the DOM. */
function textBoxes(html: string, dir: string): Box[] {
  const probe = join(dir, 'probe.html');
  const script = `<script>const b=[...document.querySelectorAll('svg text')].map((t)=>{const r=t.getBoundingClientRect();return{cls:t.getAttribute('class'),text:t.textContent,x:r.left,y:r.top,w:r.width,h:r.height}});const p=document.createElement('pre');p.id='boxes';p.textContent=JSON.stringify(b);document.body.append(p);</script>`;
  writeFileSync(
    probe,
    html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '').replace('</body>', `${script}</body>`),
  );
  const dom = chromium(['--dump-dom', `file://${probe}`]);
  const json = /<pre id="boxes">([^<]*)<\/pre>/.exec(dom)?.[1] ?? '[]';
  return JSON.parse(json.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')) as Box[];
}

const overlap = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe.skipIf(!CHROMIUM)(
  `the HTML report in headless Chromium${CHROMIUM ? '' : ' (skipped: no chromium installed)'}`,
  () => {
    const T0 = Date.parse('2026-11-20T00:00:00Z');
    const H = 3_600_000;
    // Four days, nothing in the first one; then PR i merges in hour 24 + i % 48, after (10 + 7 i) minutes.
    const prs: ConcludedPr[] = Array.from({ length: 30 }, (_, i) => {
      const concludedAt = T0 + (24 + ((i * 5) % 48)) * H + 50 * 60_000;
      return { number: i + 1, state: 'merged', submittedAt: concludedAt - (10 + 7 * i) * 60_000, concludedAt };
    });
    const computed = computeStats({ window: { since: T0, until: T0 + 96 * H }, prs, attempts: [], settings: null });
    const stats = { ...computed.stats, ceilingPerHour: 1.25 };
    const { series } = computed;
    const bins = histogram(series.timeToMergeSeconds).length;
    const dir = mkdtempSync(join(tmpdir(), 'mq-report-'));
    const file = join(dir, 'report.html');
    const groups = groupedStatsFields(stats).map((g) => ({
      title: g.title,
      figures: g.fields.map((f): [string, string] => [f.label, f.value]),
    }));
    const html = htmlReport(
      stats,
      series,
      { queue: 'main of github.com/acme/<b>widgets</b>', generatedAt: '2026-11-24T00:00:00Z' },
      groups,
    );
    writeFileSync(file, html);

    it('has one bar per hour and one per time-to-merge range in the rendered DOM', () => {
      const dom = chromium(['--dump-dom', `file://${file}`]);
      expect(dom.match(/<rect class="bar"/g)).toHaveLength(96);
      expect(bins).toBe(8);
      expect(dom.match(/<rect class="bin"/g)).toHaveLength(bins);
      expect(dom).toContain('github.com/acme/&lt;b&gt;widgets&lt;/b&gt;');
      expect(dom).toContain('<th>time to merge p50</th><td>1h 48m</td>'); // PR 15 of 30 took 10 + 7 x 14 minutes
      expect(dom).toContain('<th colspan="2" class="group">Reliability</th>');
    });

    it('the axis labels, bin labels and ceiling line are in the DOM, and no two labels overlap', () => {
      const boxes = textBoxes(html, dir);
      const of = (cls: string) => boxes.filter((b) => b.cls === cls);
      expect(of('y-label').map((b) => b.text)).toEqual(['0/h', '0.75/h', '1.5/h', '0', '5']);
      expect(of('tick-label').map((b) => b.text)).toEqual(expect.arrayContaining(['Nov 21', 'Nov 22', 'Nov 23']));
      expect(boxes.filter((b) => b.cls === 'tick-label edge').map((b) => b.text)).toEqual([
        'from 2026-11-20 00:00',
        'to 2026-11-24 00:00 UTC',
      ]);
      expect(of('ceiling-label').map((b) => b.text)).toEqual(['ceiling 1.25/h (settings)']);
      expect(of('bin-label').length).toBeGreaterThanOrEqual(5);
      for (const b of boxes) expect(b.w * b.h, `${b.text} is laid out`).toBeGreaterThan(0);
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++) {
          const [a, b] = [boxes[i] as Box, boxes[j] as Box];
          expect(overlap(a, b), `"${a.text}" overlaps "${b.text}"`).toBe(false);
        }
      const dom = chromium(['--dump-dom', `file://${file}`]);
      expect(dom).toMatch(/<line class="ceiling" /);
      expect(dom).toMatch(/<rect class="nodata" /);
      expect(dom).toContain('no data before Nov 21 00:50 UTC');
    });

    it('renders: the screenshot is not blank and shows both charts and the ceiling in their colours', () => {
      const png = join(dir, 'shot.png');
      chromium([`--screenshot=${png}`, '--window-size=900,1500', `file://${file}`]);
      const img = readPng(readFileSync(png));
      expect([img.width, img.height]).toEqual([900, 1500]);
      const white = countColour(img, [255, 255, 255], 4);
      expect(white).toBeLessThan(img.width * img.height * 0.98);
      expect(countColour(img, [0x3b, 0x7d, 0xd8])).toBeGreaterThan(1000); // merges per hour bars
      expect(countColour(img, [0xd8, 0x83, 0x3b])).toBeGreaterThan(2000); // time-to-merge bars
      expect(countColour(img, [0xc0, 0x39, 0x2b], 24)).toBeGreaterThan(300); // the ceiling line
    });
  },
);
