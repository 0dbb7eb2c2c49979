// `node --require ./record-loads.cjs …`: at exit, writes each bundle the CLI's loader loaded
// (src/boot/bundles.ts), a line each as `FILE<TAB>CACHE`, to the file named by MQ_LOAD_LOG, and
// the built-in modules the process loaded to MQ_LOAD_LOG.builtins and Node's compile cache
// directory, if on, to MQ_LOAD_LOG.node-cache
// (test/e2e/startup-loads.test.ts, test/e2e/config.test.ts).
const { writeFileSync } = require('node:fs');

globalThis[Symbol.for('mq.loader')] = (loader) => {
  process.on('exit', () => {
    const log = process.env.MQ_LOAD_LOG;
    if (!log) return;
    writeFileSync(log, loader.loaded.map((r) => `${r.file}\t${r.cache}\n`).join(''));
    const builtins = process.moduleLoadList
      .filter((m) => m.startsWith('NativeModule '))
      .map((m) => m.slice('NativeModule '.length));
    writeFileSync(`${log}.builtins`, `${builtins.join('\n')}\n`);
    // Node's own compile cache (Node >= 22.1): mq never turns it on.
    writeFileSync(`${log}.node-cache`, require('node:module').getCompileCacheDir?.() ?? '');
  });
};
