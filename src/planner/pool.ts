// Runs every (row, run) pair on worker threads when the bundled worker exists, else in this thread.
// Results are stored by task index (independent of scheduling); worker heaps are capped so an
// oversized run is an error, not a V8 abort.
import { existsSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { UsageError } from '../errors.js';
import { simulateRun } from './driver.js';
import type { RunMetrics, SettingsRow, SimInputs } from './model.js';

interface Task {
  index: number;
  row: number;
  run: number;
}

function workerFile(url: URL | null): string | null {
  if (url === null || !url.pathname.endsWith('.js')) return null;
  const file = fileURLToPath(url);
  return existsSync(file) ? file : null;
}

const MIN_HEAP_MB = 1024;
const MAX_HEAP_MB = 4096;

/** Worker threads and the heap of each: half the machine's memory between them, 1 to 4 GiB each. */
export function memoryPlan(wanted: number, totalBytes = totalmem()): { threads: number; heapMb: number } {
  const budgetMb = Math.floor(totalBytes / 2 ** 21);
  const threads = Math.max(1, Math.min(wanted, Math.floor(budgetMb / MIN_HEAP_MB)));
  return { threads, heapMb: Math.min(MAX_HEAP_MB, Math.max(MIN_HEAP_MB, Math.floor(budgetMb / threads))) };
}

function outOfMemory(heapMb: number, threads: number): UsageError {
  return new UsageError(
    `queue simulate: a simulated run needed more than ${heapMb} MB, the memory of a worker thread on this machine`,
    {
      hints: [
        'simulate less at once: lower concurrency or batch sizes in --compare, --arrivals, --failure-rate ' +
          'or --duration',
        ...(threads > 1 && heapMb < MAX_HEAP_MB
          ? [`--jobs 1 gives the one thread more memory (up to ${MAX_HEAP_MB} MB)`]
          : []),
      ],
    },
  );
}

/** `worker`: the bundled worker's URL; null or missing runs in this thread. `heapMb`: per-worker heap (tests). */
export async function runAll(
  inputs: SimInputs,
  rows: SettingsRow[],
  jobs: number | null,
  worker: URL | null = null,
  heapMb?: number,
): Promise<RunMetrics[][]> {
  const tasks: Task[] = [];
  rows.forEach((_, row) => {
    for (let run = 0; run < inputs.runs; run++) tasks.push({ index: tasks.length, row, run });
  });
  const results = new Array<RunMetrics>(tasks.length);
  const plan = memoryPlan(Math.min(jobs ?? availableParallelism(), tasks.length));
  const threads = plan.threads;
  const limitMb = heapMb ?? plan.heapMb;
  // One thread too runs in a worker: only a worker's heap can be capped without risking the process.
  const file = workerFile(worker);
  if (file === null) {
    for (const t of tasks) results[t.index] = simulateRun(inputs, (rows[t.row] as SettingsRow).settings, t.run);
  } else {
    await new Promise<void>((resolve, reject) => {
      let next = 0;
      let done = 0;
      const workers: Worker[] = [];
      const stop = () => {
        for (const w of workers) void w.terminate();
      };
      for (let i = 0; i < threads; i++) {
        const w = new Worker(file, {
          workerData: { inputs, rows },
          resourceLimits: { maxOldGenerationSizeMb: limitMb },
        });
        workers.push(w);
        const feed = () => {
          if (next < tasks.length) w.postMessage(tasks[next++]);
        };
        w.on('message', (msg: { index: number; metrics: RunMetrics }) => {
          results[msg.index] = msg.metrics;
          done++;
          if (done === tasks.length) {
            stop();
            resolve();
          } else feed();
        });
        w.on('error', (err) => {
          stop();
          reject(
            (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY' ? outOfMemory(limitMb, threads) : err,
          );
        });
        feed();
      }
    });
  }
  return rows.map((_, row) => results.slice(row * inputs.runs, (row + 1) * inputs.runs));
}
