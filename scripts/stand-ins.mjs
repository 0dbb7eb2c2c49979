// Stand-ins for package code mq never runs, for the CLI's bundles (scripts/build.mjs).
const unused = (what) => `throw new Error("conf ${what}: not bundled in mq")`;
/** [importing package, import, contents]. */
const STAND_INS = [
  // commander's executable subcommands (mq has none): node:child_process costs ~4 ms at load.
  [
    'commander',
    /^node:child_process$/,
    "let m; module.exports = new Proxy({}, { get: (_, k) => (m ??= require('child_process'))[k] });",
  ],
  // chalk's detection of colour support (tty, node:net, os): mq decides colour itself (output/io.ts).
  [
    'chalk',
    /^#supports-color$/,
    'export const createSupportsColor = () => false;\nexport default { stdout: false, stderr: false };',
  ],
  // conf's `schema` and `migrations` options (ajv, semver: ~180 KB), which mq does not use.
  ['conf', /^ajv\/dist\/2020\.js$/, `export class Ajv2020 { constructor() { ${unused('schema')}; } }`],
  ['conf', /^ajv-formats$/, `export default { default: () => { ${unused('schema')}; } };`],
  ['conf', /^semver$/, `export default new Proxy({}, { get: () => () => { ${unused('migrations')}; } });`],
];

export const standIns = {
  name: 'stand-ins',
  setup(b) {
    b.onResolve({ filter: /^(node:child_process|#supports-color|ajv\/dist\/2020\.js|ajv-formats|semver)$/ }, (args) => {
      const stand = STAND_INS.find(([p, f]) => f.test(args.path) && args.importer.includes(`/node_modules/${p}/`));
      return stand && { path: `${args.path}?${stand[0]}`, namespace: 'stand-in', pluginData: stand[2] };
    });
    b.onLoad({ filter: /.*/, namespace: 'stand-in' }, (args) => ({ contents: args.pluginData, loader: 'js' }));
  },
};
