// `node --require ./record-loads.cjs …`: at exit, writes each bundle the CLI's loader loaded
// (src/boot/bundles.ts), a line each as `FILE<TAB>CACHE`, to the file named by MQ_LOAD_LOG
// (test/e2e/startup-loads.test.ts, test/e2e/config.test.ts).
const { writeFileSync } = require('node:fs');

globalThis[Symbol.for('mq.loader')] = (loader) => {
  process.on('exit', () => {
    if (process.env.MQ_LOAD_LOG) writeFileSync(process.env.MQ_LOAD_LOG, loader.loaded.map((r) => `${r.file}\t${r.cache}\n`).join(''));
  });
};
