// Builds dist/ with esbuild: CommonJS bundles that src/boot/bundles.ts runs as V8 scripts with a code
// cache (Node 20 has none for ES modules). dist/main.cjs answers --version, else loads dist/cli.cjs,
// the core: the root program, every command (evaluated when a command line names it) and what they
// share. What only some command lines need is a self-contained bundle in dist/lazy/, which a dynamic
// import from another bundle requires as `mq:lazy/NAME`; a module it shares with the core is a copy
// (errors are recognised by brand, src/errors.ts), but for SHARED. MQ_BUILD_PLAIN=1: no minifying.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildLib, englishOnlyZod } from './build-lib.mjs';
import { standIns } from './stand-ins.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
rmSync(resolve(root, 'dist'), { recursive: true, force: true });
const LAZY = {
  // a command that sends a request (v1 or v2)
  api: [
    'src/api/http.ts',
    'src/api/client.ts',
    'src/api/v2/client.ts',
    'src/api/v2/ids.ts',
    'src/stats/lazy.ts',
    'src/api/transport.ts',
  ],
  'transport-undici': ['src/api/transport-undici.ts'], // only when a proxy applies
  emulator: ['src/emulator/index.ts'],
  planner: ['src/planner/index.ts', 'src/commands/status-eta.ts'], // status-eta: mq status --eta
  metrics: ['src/api/prometheus.ts', 'src/api/merge-queue-metrics.ts'], // the Prometheus parser
  'config-write': ['src/config/write.ts'], // conf, proper-lockfile
  describe: ['src/help/describe.ts', 'src/completion/generate.ts'], // help --json, completion scripts
  notify: ['src/notify/index.ts'], // mq notify: message bodies, delivery, the watch's state
  'cli-table3': ['cli-table3'],
};
const fileOf = (src) => (src.startsWith('src/') ? resolve(root, src) : src);
const owner = new Map(Object.entries(LAZY).flatMap(([name, srcs]) => srcs.map((s) => [fileOf(s), `lazy/${name}`])));
// The undici transport throws the api bundle's TransportError: http.ts tells transport failures by class.
const SHARED = { 'lazy/transport-undici': resolve(root, 'src/api/transport.ts') };
/** A dynamic import of a module another bundle holds becomes a require of that bundle. */
const lazyImports = (self) => ({
  name: 'lazy-imports',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      const file = args.path.startsWith('.') ? resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts')) : args.path;
      if (SHARED[self] === file) return { path: 'mq:lazy/api', external: true };
      if (args.kind !== 'dynamic-import') return undefined;
      const key = owner.get(file);
      return key && key !== self ? { path: `mq:${key}`, external: true } : undefined;
    });
  },
});
const common = { bundle: true, platform: 'node', target: 'node20', legalComments: 'none', logLevel: 'warning' };
const { version } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
const define = { MQ_VERSION: JSON.stringify(version) };
const [bundles, meta] = [{}, {}];
async function bundle(key, sources, options = {}) {
  const exports = sources.map((s) => `export * from ${JSON.stringify(fileOf(s))};`).join('\n');
  const r = await build({
    ...common,
    ...{ format: 'cjs', minify: !process.env.MQ_BUILD_PLAIN, write: false, metafile: true, banner: options.banner },
    // A package bundle is the package's module.exports, as Node's import() hands it over.
    stdin: {
      contents: key === 'lazy/cli-table3' ? 'module.exports = require("cli-table3");' : exports,
      resolveDir: root,
    },
    // The loader runs bundles as scripts, where Node 20 has no `import()`: dynamic imports become requires.
    supported: { 'dynamic-import': false },
    plugins: [lazyImports(key), standIns, englishOnlyZod],
    define: { ...define, ...options.define },
  });
  const out = Object.values(r.metafile.outputs)[0];
  const left = out.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path);
  if (left.length > 0) throw new Error(`build: ${key}.cjs still imports ${left} dynamically`);
  const { text } = r.outputFiles[0];
  mkdirSync(dirname(resolve(root, 'dist', key)), { recursive: true });
  writeFileSync(resolve(root, 'dist', `${key}.cjs`), text);
  bundles[key] = { file: `${key}.cjs`, hash: createHash('sha256').update(text).digest('hex').slice(0, 16) };
  const inputs = Object.entries(out.inputs).filter(([id]) => /^(src|node_modules)\//.test(id));
  meta[`dist/${key}.cjs`] = { inputs: Object.fromEntries(inputs) };
}
await bundle('cli', ['src/cli.ts']);
// The planner finds its worker next to its own file: import.meta.url is the bundle's URL.
const urlBanner = { js: 'var __mqUrl = require("node:url").pathToFileURL(__filename).href;' };
const fileUrl = { define: { 'import.meta.url': '__mqUrl' }, banner: urlBanner };
for (const [name, srcs] of Object.entries(LAZY)) await bundle(`lazy/${name}`, srcs, name === 'planner' ? fileUrl : {});
const worker = await build({
  ...common,
  ...{ format: 'esm', minify: true, define, plugins: [englishOnlyZod], metafile: true, outdir: 'dist/lazy' },
  entryPoints: { 'planner-worker': 'src/planner/worker.ts' },
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
});
Object.assign(meta, worker.metafile.outputs);
const main = { format: 'cjs', minify: true, outdir: 'dist', outExtension: { '.js': '.cjs' } };
await build({
  ...common,
  ...main,
  entryPoints: { main: 'src/main.ts' },
  define: { ...define, MQ_BUNDLES: JSON.stringify(bundles) },
});
// Which sources each output holds, for test/e2e/startup-loads.test.ts; not shipped.
mkdirSync(resolve(root, 'node_modules/.cache/mq-build'), { recursive: true });
writeFileSync(resolve(root, 'node_modules/.cache/mq-build/meta.json'), JSON.stringify({ outputs: meta }));
await buildLib();
