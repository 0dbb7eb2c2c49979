// `node --import ./record-loads.mjs …`: appends the URL of every ES module the process loads
// from a file to the file named by MQ_LOAD_LOG (test/e2e/startup-loads.test.ts).
import { register } from 'node:module';

register('./record-loads-hooks.mjs', import.meta.url);
