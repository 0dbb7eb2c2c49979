/**
 * Entry point. `mq --version` is the most frequent call in CI scripts: answer it (and
 * `mq --version --json`) before loading anything else; every other command line goes to cli.ts.
 */
import { versionRequest, versionText } from './cli/version.js';

declare const MQ_VERSION: string;

const argv = process.argv.slice(2);
const version = versionRequest(argv);
if (version) {
  process.stdout.write(versionText(typeof MQ_VERSION === 'string' ? MQ_VERSION : '0.0.0-dev', version));
} else {
  const { main } = await import('./cli.js');
  await main(argv);
}
