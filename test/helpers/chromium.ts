/** Headless Chromium for the HTML report tests: the browser found on PATH (or undefined), and one run of it. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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

export interface Box {
  text: string;
  cls: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * Where Chromium lays out every SVG text of an HTML report: a copy of the page with a script that
 * writes their bounding boxes into the DOM (the report itself runs no script), dumped after load.
 */
export function svgTextBoxes(file: string): Box[] {
  const probe = `<script>
const boxes = [...document.querySelectorAll('svg text')].map((t) => {
  const r = t.getBoundingClientRect();
  return { text: t.textContent, cls: t.getAttribute('class') || '', x: r.x, y: r.y, w: r.width, h: r.height };
});
const pre = document.createElement('pre');
pre.id = 'mq-boxes';
pre.textContent = JSON.stringify(boxes);
document.body.appendChild(pre);
</script>`;
  const copy = join(mkdtempSync(join(tmpdir(), 'mq-probe-')), 'probe.html');
  writeFileSync(copy, readFileSync(file, 'utf8').replace('</body>', `${probe}</body>`));
  const dom = chromium(['--dump-dom', '--window-size=1200,1800', `file://${copy}`]);
  const m = /<pre id="mq-boxes">([^<]*)<\/pre>/.exec(dom);
  if (!m) throw new Error('the layout probe wrote nothing');
  return JSON.parse(
    (m[1] as string)
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&'),
  ) as Box[];
}

/** Pairs of boxes that overlap (by more than a rounding error). */
export function overlaps(boxes: Box[]): Array<[Box, Box]> {
  const out: Array<[Box, Box]> = [];
  const eps = 0.5;
  boxes.forEach((a, i) => {
    for (const b of boxes.slice(i + 1)) {
      if (a.x + a.w - eps > b.x && b.x + b.w - eps > a.x && a.y + a.h - eps > b.y && b.y + b.h - eps > a.y)
        out.push([a, b]);
    }
  });
  return out;
}
