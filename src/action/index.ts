// Entry of the bundled action. SIGINT/SIGTERM (a cancelled job) stop the wait: exit 130 and an annotation.
import { runAction } from './main.js';
import { Workflow, type ActionIo } from './workflow.js';

const controller = new AbortController();
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => controller.abort());

const io: ActionIo = { env: process.env, write: (text) => process.stdout.write(text) };
try {
  const { exitCode } = await runAction(io, controller.signal);
  process.exitCode = exitCode;
} catch (err) {
  // Not expected: runAction reports its own failures. Never print more than the message.
  new Workflow(io).error(String((err as Error)?.message ?? err), 'mq: unexpected error');
  process.exitCode = 1;
}
