// `npm run bench`: every benchmark in one run. Not part of `npm test`.
import { cpus, totalmem } from 'node:os';
import { benchStartup } from './startup.mjs';
import { benchStatus } from './status.mjs';
import { benchBulk } from './bulk.mjs';
import { benchPayload } from './payload.mjs';
import { benchEmulatorLoad } from './emulator-load.mjs';
import { benchEngine } from './engine.mjs';

console.log(
  `mq benchmarks · ${new Date().toISOString()} · node ${process.version} · ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'} · ${(totalmem() / 2 ** 30).toFixed(0)} GiB\n`,
);
benchStartup();
console.log();
await benchStatus();
console.log();
await benchBulk({ loop: Number(process.env.LOOP ?? 1000) });
console.log();
await benchPayload();
console.log();
await benchEmulatorLoad();
console.log();
await benchEngine();
