/**
 * Entry point (built as dist/main.cjs, run by bin/mq.js). `mq --version` is the most frequent call
 * in CI scripts: answer it (and `mq --version --json`) before loading anything else; every other
 * command line goes to the CLI bundle (dist/cli.cjs, src/cli.ts), loaded with a code cache
 * (boot/bundles.ts). CommonJS, like the bundles: Node then never starts its ES module loader.
 */
import { type BundleTable, cliLoader, commandWords, type Loader } from './boot/bundles.js';
import { versionRequest, versionText } from './cli/version.js';
import { fdWriter, notTerminal } from './output/fd-write.js';

declare const MQ_VERSION: string;
/** The bundles of this build (scripts/build.mjs): key -> file under dist/ and content hash. */
declare const MQ_BUNDLES: BundleTable;

/** Runs the command line `argv`. */
export async function start(argv: string[]): Promise<void> {
  const version = versionRequest(argv);
  if (version) {
    const text = versionText(typeof MQ_VERSION === 'string' ? MQ_VERSION : '0.0.0-dev', version);
    // Not a terminal: one write, without making Node's stdout stream (output/fd-write.ts).
    if (notTerminal(1))
      fdWriter(
        1,
        () => process.stdout,
        () => process.exit(0),
      )(text);
    else process.stdout.write(text);
    return;
  }
  const { main } = cli(argv);
  await main(argv);
}

let loader: Loader | undefined;

/** The CLI bundle's exports; `argv` names the code caches used (boot/bundles.ts commandWords). */
export function cli(argv: readonly string[] = []): typeof import('./cli.js') {
  loader ??= cliLoader(__filename, MQ_BUNDLES, process.env, require, commandWords(argv));
  // A test preload (test/helpers/record-loads.cjs) sees what is loaded.
  const hook = (globalThis as { [key: symbol]: unknown })[Symbol.for('mq.loader')];
  if (typeof hook === 'function') hook(loader);
  return loader.load('cli') as typeof import('./cli.js');
}

// `node dist/main.cjs …` runs it too.
if (require.main === module) void start(process.argv.slice(2));
