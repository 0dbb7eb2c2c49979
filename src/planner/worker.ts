/** Worker-thread entry: simulates the (row, run) tasks the pool sends, one at a time. */
import { parentPort, workerData } from 'node:worker_threads';
import { simulateRun } from './driver.js';
import type { SettingsRow, SimInputs } from './model.js';

const data = workerData as { inputs: SimInputs; rows: SettingsRow[] };
parentPort?.on('message', (task: { index: number; row: number; run: number }) => {
  const row = data.rows[task.row] as SettingsRow;
  parentPort?.postMessage({ index: task.index, metrics: simulateRun(data.inputs, row.settings, task.run) });
});
