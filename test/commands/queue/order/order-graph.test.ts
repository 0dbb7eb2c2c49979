/**
 * `mq queue order` and `mq queue graph` against the emulator on both APIs: the same order, v1's marked
 * approximate; the graph's dot and mermaid text read back to the same edges; hostile titles inert.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { queue } from '../../../emulator/http-helpers.js';
import { KEY, start, stop } from '../../../emulator/v2-helpers.js';
import { runMq } from '../../../helpers/in-process.js';
import { baseEnv } from '../../../helpers/run-cli.js';
import { afterEach } from 'vitest';

afterEach(stop);
let c: Awaited<ReturnType<typeof start>>;
let v1: Record<string, string | undefined>;
let v2: Record<string, string | undefined>;

beforeEach(async () => {
  c = await start();
  await c.post('createQueue', queue);
  v1 = { ...baseEnv(c.emu.url), MQ_TOKEN: c.emu.token, MQ_REPO: 'acme/app', MQ_BRANCH: 'main' };
  v2 = { ...v1, MQ_TOKEN: KEY, MQ_API_URL: c.emu.url.replace(/\/v1$/, '') };
});

async function parallelQueue(titles: Record<number, string> = {}) {
  await c.post('updateQueue', { ...queue, mode: 'parallel' });
  for (const n of [1, 2, 3]) {
    if (titles[n]) await c.post('/_emulator/pullRequests', { repo: queue.repo, number: n, title: titles[n] });
    await c.post('submitPullRequest', { ...queue, pr: { number: n } });
    const pr = await c.pr(n);
    const targets = n === 3 ? ['//lib'] : ['//app'];
    await c.post('setImpactedTargets', { ...queue, pr: { number: n, sha: pr.prSha }, impactedTargets: targets });
  }
}

describe('mq queue order', () => {
  it('lists the same PRs in the same order on v1 and v2; v1 says it is approximate', async () => {
    await c.post('updateQueue', { ...queue, concurrency: 1, batch: false });
    for (const n of [1, 2, 3]) await c.post('submitPullRequest', { ...queue, pr: { number: n } });
    const [a, b] = await Promise.all([
      runMq(['queue', 'order', '--json'], { env: v1 }),
      runMq(['queue', 'order', '--json'], { env: v2 }),
    ]);
    const one = JSON.parse(a.stdout);
    const two = JSON.parse(b.stdout);
    const flat = (o: { batches: { prs: { number: number }[] }[]; pending: { number: number }[] }) => [
      ...o.batches.flatMap((x) => x.prs.map((p) => p.number)),
      ...o.pending.map((p) => p.number),
    ];
    expect(flat(one)).toEqual([1, 2, 3]);
    expect(flat(two)).toEqual([1, 2, 3]);
    expect([one.approximate, two.approximate]).toEqual([true, false]);
    expect(a.stderr).toContain('the v1 API does not serve the dispatch order');
    expect(b.stderr).toBe('');
    expect(two.batches[0].runId).toBe((await c.runs())[0]?.id);
    expect(two.pending.map((p: { directlyAhead: number[] }) => p.directlyAhead)).toEqual([[1], [2]]);
    const plain = await runMq(['queue', 'order'], { env: v2 });
    expect(plain.stdout.split('\n')[1]?.split('\t').slice(0, 4)).toEqual(['pending', '2', '2', 'schedulable']);
  });

  it('an empty queue says so', async () => {
    const r = await runMq(['queue', 'order', '-o', 'table'], { env: v2 });
    expect(r.stdout).toContain('The queue is empty.');
  });
});

describe('mq queue graph', () => {
  it('mermaid and dot read back to the edges of the JSON graph', async () => {
    await parallelQueue();
    const doc = JSON.parse((await runMq(['queue', 'graph', '--json'], { env: v2 })).stdout);
    const edges = doc.edges.map((e: { from: number; to: number }) => `${e.from}->${e.to}`).sort();
    expect(edges).toEqual(['1->2']);
    expect(doc.nodes.map((n: { number: number }) => n.number).sort()).toEqual([1, 2, 3]);
    const mermaid = (await runMq(['queue', 'graph', '--format', 'mermaid'], { env: v2 })).stdout;
    expect(mermaid.split('\n')[0]).toBe('flowchart LR');
    const mEdges = [...mermaid.matchAll(/^ {2}pr(\d+) --> pr(\d+)$/gm)].map((m) => `${m[1]}->${m[2]}`).sort();
    expect(mEdges).toEqual(edges);
    expect([...mermaid.matchAll(/^ {2}pr(\d+)\["/gm)].map((m) => Number(m[1])).sort()).toEqual([1, 2, 3]);
    const dot = (await runMq(['queue', 'graph', '--format', 'dot'], { env: v2 })).stdout;
    expect(dot.startsWith('digraph merge_queue {')).toBe(true);
    const dEdges = [...dot.matchAll(/^ {2}pr(\d+) -> pr(\d+);$/gm)].map((m) => `${m[1]}->${m[2]}`).sort();
    expect(dEdges).toEqual(edges);
  });

  it('titles from the service cannot break out of a dot or mermaid label', async () => {
    await parallelQueue({ 1: 'evil"]; click pr1 "javascript:alert(1)" <b>x</b>', 2: 'x\\"; pr9 -> pr8; "' });
    for (const format of ['mermaid', 'dot']) {
      const out = (await runMq(['queue', 'graph', '--format', format], { env: v2 })).stdout;
      const labels = [...out.matchAll(/\["(.*)"\]|label="(.*)"\]/g)].map((m) => m[1] ?? m[2] ?? '');
      expect(labels).toHaveLength(3);
      // dot's own line break `\n` between the title and the state is the one escape a label has.
      for (const l of labels) expect(l.replace('\\n', ' ')).not.toMatch(/["<>\];\\]/);
      // Every line is a header, a node or an edge of this graph: nothing a title added.
      const shapes = [/^flowchart LR$/, /^digraph merge_queue \{$/, /^ {2}(rankdir=LR|node \[shape=box\]);$/, /^\}$/];
      const node = /^ {2}pr[123](\[".*"\]| \[label=".*"\];)$/;
      const edge = /^ {2}pr[123] --?> pr[123];?$/;
      for (const line of out.trimEnd().split('\n'))
        expect(
          [...shapes, node, edge].some((re) => re.test(line)),
          line,
        ).toBe(true);
    }
  });

  it('on v1 it is refused with a hint to use v2 (exit 5), nothing printed on stdout', async () => {
    const r = await runMq(['queue', 'graph'], { env: v1 });
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('the v1 API has no dependency graph');
  });
});
