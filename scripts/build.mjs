// Builds dist/ with esbuild: CommonJS bundles that src/boot/bundles.ts runs as V8 scripts with a code
// cache (Node 20 has none for ES modules). dist/main.cjs answers --version, else loads dist/cli.cjs,
// the core: the root program, every command (each evaluated when its command line names it) and
// what they share. What only some command lines need is a self-contained bundle in dist/lazy/, which
// a dynamic import from another bundle requires as `mq:lazy/NAME`; a module such a bundle shares
// with the core is a copy (errors are recognised by brand, src/errors.ts). MQ_BUILD_PLAIN=1: no minifying.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildLib, englishOnlyZod } from './build-lib.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
rmSync(resolve(root, 'dist'), { recursive: true, force: true });
const LAZY = {
  api: ['src/api/http.ts', 'src/api/client.ts', 'src/stats/lazy.ts'], // a command that sends a request
  'transport-undici': ['src/api/transport-undici.ts'], // only when a proxy applies
  emulator: ['src/emulator/index.ts'],
  planner: ['src/planner/index.ts'],
  metrics: ['src/api/prometheus.ts', 'src/api/merge-queue-metrics.ts'], // the Prometheus parser
  'config-write': ['src/config/write.ts'], // conf, proper-lockfile
  describe: ['src/help/describe.ts', 'src/completion/generate.ts'], // help --json, completion scripts
  'cli-table3': ['cli-table3'],
};
const owner = new Map(Object.entries(LAZY).flatMap(([name, srcs]) => srcs.map((s) => [s.startsWith('src/') ? resolve(root, s) : s, `lazy/${name}`])));
// Stand-ins for package code mq never runs: [importing package, import, contents].
const STAND_INS = [
  // commander's executable subcommands (mq has none): node:child_process costs ~4 ms at load.
  ['commander', /^node:child_process$/, "let m; module.exports = new Proxy({}, { get: (_, k) => (m ??= require('node:child_process'))[k] });"],
  // chalk's detection of colour support (tty, node:net, os): mq decides colour itself (output/io.ts).
  ['chalk', /^#supports-color$/, 'export function createSupportsColor() { return false; }\nexport default { stdout: false, stderr: false };'],
  // conf's `schema` and `migrations` options (ajv, semver: ~180 KB), which mq does not use.
  ['conf', /^ajv\/dist\/2020\.js$/, 'export class Ajv2020 { constructor() { throw new Error("conf schema: not bundled"); } }'],
  ['conf', /^ajv-formats$/, 'export default { default: () => { throw new Error("conf schema: not bundled"); } };'],
  ['conf', /^semver$/, 'export default new Proxy({}, { get: () => () => { throw new Error("conf migrations: not bundled"); } });'],
];
const plugin = (self) => ({
  name: 'mq-bundles',
  setup(b) {
    b.onResolve({ filter: /^mq:/ }, (args) => ({ path: args.path, external: true }));
    b.onResolve({ filter: /.*/ }, (args) => {
      const stand = STAND_INS.find(([p, f]) => f.test(args.path) && args.importer.includes(`/node_modules/${p}/`));
      if (stand) return { path: `${args.path}?${stand[0]}`, namespace: 'stand-in', pluginData: stand[2] };
      if (args.kind !== 'dynamic-import') return undefined;
      const key = owner.get(args.path) ?? owner.get(resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts')));
      return key && key !== self ? { path: `mq:${key}`, external: true } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'stand-in' }, (args) => ({ contents: args.pluginData, loader: 'js' }));
  },
});
const common = { bundle: true, format: 'cjs', platform: 'node', target: 'node20', legalComments: 'none', logLevel: 'warning', absWorkingDir: root };
const define = { MQ_VERSION: JSON.stringify(pkg.version) };
const bundles = {};
const meta = {};
async function bundle(key, sources, options = {}) {
  // The loader runs bundles as scripts, where Node 20 has no `import()`: dynamic imports become requires.
  const entry = sources.map((s) => `export * from ${JSON.stringify(s.startsWith('src/') ? resolve(root, s) : s)};`).join('\n');
  const r = await build({
    ...common,
    minify: !process.env.MQ_BUILD_PLAIN,
    stdin: { contents: sources[0].startsWith('src/') ? entry : `module.exports = require(${JSON.stringify(sources[0])});`, resolveDir: root },
    supported: { 'dynamic-import': false },
    plugins: [plugin(key), englishOnlyZod],
    define: { ...define, ...options.define },
    banner: options.banner,
    write: false,
    metafile: true,
  });
  const out = Object.values(r.metafile.outputs)[0];
  const dynamic = out.imports.filter((i) => i.kind === 'dynamic-import');
  if (dynamic.length > 0) throw new Error(`build: ${key}.cjs still imports ${dynamic.map((i) => i.path)} dynamically`);
  const { text } = r.outputFiles[0];
  mkdirSync(dirname(resolve(root, 'dist', key)), { recursive: true });
  writeFileSync(resolve(root, 'dist', `${key}.cjs`), text);
  bundles[key] = { file: `${key}.cjs`, hash: createHash('sha256').update(text).digest('hex').slice(0, 16) };
  meta[`dist/${key}.cjs`] = { inputs: Object.fromEntries(Object.entries(out.inputs).filter(([id]) => /^(src|node_modules)\//.test(id))) };
}
await bundle('cli', ['src/cli.ts']);
for (const [name, sources] of Object.entries(LAZY)) {
  // The planner finds its worker next to its own file: import.meta.url is the bundle's URL.
  const url = { define: { 'import.meta.url': '__mqUrl' }, banner: { js: 'var __mqUrl = require("node:url").pathToFileURL(__filename).href;' } };
  await bundle(`lazy/${name}`, sources, name === 'planner' ? url : {});
}
const worker = await build({
  ...common,
  ...{ format: 'esm', minify: true, define, plugins: [englishOnlyZod], metafile: true, outdir: 'dist/lazy' },
  entryPoints: { 'planner-worker': 'src/planner/worker.ts' },
  banner: { js: "import { createRequire as __mqCreateRequire } from 'node:module'; const require = __mqCreateRequire(import.meta.url);" },
});
Object.assign(meta, worker.metafile.outputs);
const defineBundles = { ...define, MQ_BUNDLES: JSON.stringify(bundles) };
await build({ ...common, minify: true, entryPoints: { main: 'src/main.ts' }, outdir: 'dist', outExtension: { '.js': '.cjs' }, define: defineBundles });
// Which sources each output holds, for test/e2e/startup-loads.test.ts; not shipped.
mkdirSync(resolve(root, 'node_modules/.cache/mq-build'), { recursive: true });
writeFileSync(resolve(root, 'node_modules/.cache/mq-build/meta.json'), JSON.stringify({ outputs: meta }));
await buildLib();
