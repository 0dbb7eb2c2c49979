#!/usr/bin/env node
// The built entry lives in dist/; a checkout that was never built gets a clear message, not a stack.
import('../dist/main.js').catch((err) => {
  if (err?.code === 'ERR_MODULE_NOT_FOUND' && String(err.url ?? '').endsWith('/dist/main.js')) {
    process.stderr.write(`mq: not built yet: run \`npm run build\` in ${new URL('..', import.meta.url).pathname}\n`);
    process.exit(1);
  }
  throw err;
});
