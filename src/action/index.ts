/**
 * Entry of the bundled action (action/dist/index.js). A cancelled job gets SIGINT, then SIGTERM:
 * both stop requests and the wait, and the step ends with exit 130 and an annotation.
 */
import { runAction } from './main.js';

const controller = new AbortController();
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => controller.abort());

try {
  const { exitCode } = await runAction({ env: process.env, write: (text) => process.stdout.write(text) }, controller.signal);
  process.exitCode = exitCode;
} catch (err) {
  // Not expected: runAction reports its own failures. Never print more than the message.
  process.stdout.write(
    `::error title=mq: unexpected error::${String((err as Error)?.message ?? err)
      .replace(/%/g, '%25')
      .replace(/\r/g, '%0D')
      .replace(/\n/g, '%0A')}\n`,
  );
  process.exitCode = 1;
}
