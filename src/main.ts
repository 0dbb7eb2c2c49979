/**
 * Entry point. `mq --version` is the most frequent call in CI scripts: answer it before loading
 * anything else; every other command line goes to cli.ts.
 */
declare const MQ_VERSION: string;

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${typeof MQ_VERSION === 'string' ? MQ_VERSION : '0.0.0-dev'}\n`);
} else {
  const { main } = await import('./cli.js');
  await main(argv);
}
