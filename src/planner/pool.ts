/**
 * Runs every (settings row, run) pair, across worker threads when the bundled worker file is
 * there (dist/lazy/planner-worker.js), else in this thread. Results are stored by task index, so
 * the output does not depend on the number of workers or which finished first.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
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

/**
 * `worker` is the URL of the bundled worker entry (the caller knows where the bundle put it); null,
 * or a file that is not there (running from TypeScript sources), runs everything in this thread.
 */
export async function runAll(inputs: SimInputs, rows: SettingsRow[], jobs: number | null, worker: URL | null = null): Promise<RunMetrics[][]> {
  const tasks: Task[] = [];
  rows.forEach((_, row) => {
    for (let run = 0; run < inputs.runs; run++) tasks.push({ index: tasks.length, row, run });
  });
  const results = new Array<RunMetrics>(tasks.length);
  const threads = Math.min(jobs ?? availableParallelism(), tasks.length);
  const file = threads > 1 ? workerFile(worker) : null;
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
        const w = new Worker(file, { workerData: { inputs, rows } });
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
          reject(err);
        });
        feed();
      }
    });
  }
  return rows.map((_, row) => results.slice(row * inputs.runs, (row + 1) * inputs.runs));
}
