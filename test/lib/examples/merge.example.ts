// merge.ts: submit a PR to the merge queue and wait for it (node merge.js 42).
import { MergeQueueClient, MergeQueueError } from 'mq-cli';

const client = new MergeQueueClient({
  apiUrl: process.env.MQ_API_URL ?? 'https://api.trunk.io/v1',
  token: process.env.MQ_TOKEN ?? '',
});
const target = { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' };
const pr = Number(process.argv[2]);

try {
  await client.submitPullRequest({ ...target, pr: { number: pr }, priority: 'high' });
  const result = await client.waitForPr({
    ...target,
    pr,
    timeoutMs: 60 * 60_000,
    intervalMs: 1_000,
    onTransition: (t) => console.log(`PR #${pr}: ${t.to}`),
  });
  if (result.outcome !== 'merged') console.error(`PR #${pr} did not merge: ${result.outcome}`);
  process.exitCode = result.exitCode; // 0 merged, 9 failed or cancelled, 8 still pending at the timeout
} catch (err) {
  if (!(err instanceof MergeQueueError)) throw err;
  console.error(`${err.message} (HTTP ${err.status ?? 'none'}, ${err.kind})`);
  process.exitCode = err.exitCode;
}
