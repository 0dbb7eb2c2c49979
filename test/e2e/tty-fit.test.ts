/**
 * Tables as a person sees them in a real terminal: the built binary in a private tmux server of 60
 * columns, the screen read back with wrapped lines joined (so a line the terminal had to wrap shows
 * as one long line). `queue show` fits; `queue watch` draws on the alternate screen, follows a
 * resize, and after Ctrl-C the screen and its scrollback hold the last frame once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { baseEnv } from '../helpers/run-cli.js';
import { entry, queueRecord } from '../helpers/test-context.js';
import { hasTmux, terminal as tmuxTerminal, widest } from '../helpers/tmux.js';

if (!hasTmux) console.warn('tty-fit: tmux not installed; the real-terminal tests are skipped');

const TITLES = [
  'Add a retry budget to the HTTP client so bursts of 503s stop failing whole pipelines',
  'Cache compiled templates and render them lazily on first use, behind a flag',
  'Rename the billing job',
  'Bump the TLS library to the latest patch release with the CVE fix',
  'Document the release train and who to page when it stalls overnight',
  'Drop the legacy exporter',
];
const QUEUE = queueRecord(
  { branch: 'release/2026-q4-hotfix-train' },
  TITLES.map((t, i) => ({ ...entry(101 + i, i === 0 ? 'testing' : 'pending'), prTitle: t, prAuthor: 'margaret-hamilton' })),
);

let fake: FakeServer;
beforeAll(async () => {
  fake = await startFakeServer();
  fake.on('POST /getQueue', { status: 200, body: QUEUE });
  fake.on('POST /listPullRequests', { status: 200, body: { pullRequests: [] } });
});
afterAll(async () => {
  await fake?.close();
});
const sessions: Array<() => void> = [];
afterEach(() => {
  for (const kill of sessions.splice(0)) kill();
});

/** `mq <args>` in a tmux window of `cols` x `rows`, against the fake server. */
function terminal(args: string[], cols: number, rows: number) {
  const t = tmuxTerminal(args, cols, rows, baseEnv(fake.url));
  sessions.push(t.kill);
  return t;
}

describe.skipIf(!hasTmux)('tables in a 60-column terminal', () => {
  it('mq queue show: no line wider than 60 cells, titles cut with …', async () => {
    const t = terminal(['queue', 'show'], 60, 40);
    const s = await t.until(/exit=\d+/);
    expect(s).toContain('exit=0');
    expect(s).toContain('#106');
    expect(s).toMatch(/Add a retry[^│\n]*…/);
    expect(widest(s)).toBeLessThanOrEqual(60);
  });

  it('mq queue watch: alternate screen, fits a resize, only the last frame left after Ctrl-C', async () => {
    // 14 rows: the queue summary and six PRs do not fit, so frames are clipped, never scrolled.
    const t = terminal(['queue', 'watch', '--interval', '500ms'], 60, 14);
    const first = await t.until(/… \d+ more/);
    expect(first).toMatch(/… \d+ more/);
    expect(first.trimEnd().split('\n').length).toBeLessThanOrEqual(14);
    expect(widest(first)).toBeLessThanOrEqual(60);
    // While it runs, nothing went to the normal screen's scrollback.
    expect(t.screen(true).trimEnd()).toBe(first.trimEnd());

    t.tmux('resize-window', '-x', '48', '-y', '14');
    const narrow = await t.until(/^Queue {6}\S.{0,40}$/m);
    expect(widest(narrow)).toBeLessThanOrEqual(48);

    t.tmux('send-keys', 'C-c');
    const after = await t.until(/exit=130/, true);
    expect(after).toContain('exit=130');
    // The whole history: one frame (the last, not clipped), then the exit line.
    expect(after.match(/every 500ms · Ctrl-C to/g)).toHaveLength(1);
    expect(after.match(/│ PR /g)).toHaveLength(1);
    expect(after).toContain('#106');
    expect(after).not.toMatch(/… \d+ more/);
    expect(widest(after)).toBeLessThanOrEqual(48);
  });
});
