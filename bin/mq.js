#!/usr/bin/env node
// CommonJS (bin/package.json), like the built CLI: Node then never starts its ES module loader.
// The built entry lives in dist/; a checkout that was never built gets a clear message, not a stack.
const { join } = require('node:path');

const main = join(__dirname, '..', 'dist', 'main.cjs');
let entry;
try {
  entry = require(main);
} catch (err) {
  if (err?.code === 'MODULE_NOT_FOUND' && String(err.message).includes(main)) {
    process.stderr.write(`mq: not built yet: run \`npm run build\` in ${join(__dirname, '..')}\n`);
    process.exit(1);
  }
  throw err;
}
entry.start(process.argv.slice(2));
