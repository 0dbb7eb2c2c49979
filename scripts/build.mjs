// Builds dist/ with esbuild. dist/main.cjs answers --version, else runs dist/cli.cjs, the core (the root
// program and every command, each evaluated when a command line names it), with a code cache
// (src/boot/bundles.ts). What only some command lines need is a self-contained bundle in dist/lazy/: a
// dynamic import of it from another bundle becomes `require('mq:lazy/NAME')`. MQ_BUILD_PLAIN=1: no minifying.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildLib, englishOnlyZod } from './build-lib.mjs';
import { standIns } from './stand-ins.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = (file) => resolve(root, 'src', file);
rmSync(resolve(root, 'dist'), { recursive: true, force: true });
const LAZY = {
  api: ['api/http.ts', 'api/client.ts', 'api/v2/client.ts', 'api/v2/ids.ts', 'stats/lazy.ts', 'api/transport.ts'],
  'transport-undici': ['api/transport-undici.ts'], // only when a proxy applies
  emulator: ['emulator/index.ts'],
  planner: ['planner/index.ts', 'commands/status-eta.ts'], // status-eta: mq status --eta
  metrics: ['api/prometheus.ts', 'api/merge-queue-metrics.ts'],
  'config-write': ['config/write.ts'], // conf, proper-lockfile
  describe: ['help/describe.ts', 'completion/generate.ts'], // help --json, completion scripts
  notify: ['notify/index.ts'],
  'cli-table3': ['cli-table3'], // a package: the bundle is its module.exports
};
const owner = new Map(Object.entries(LAZY).flatMap(([n, fs]) => fs.map((f) => [f.includes('/') ? src(f) : f, n])));
// The undici transport throws the api bundle's TransportError: http.ts tells transport failures by class.
const SHARED = { 'transport-undici': src('api/transport.ts') };
/** In bundle `self`, a dynamic import of what another bundle holds becomes a require of that bundle. */
const lazyImports = (self) => ({
  name: 'lazy-imports',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      const file = args.path.startsWith('.') ? resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts')) : args.path;
      if (SHARED[self] === file) return { path: 'mq:lazy/api', external: true };
      const key = args.kind === 'dynamic-import' && owner.get(file);
      return key && key !== self ? { path: `mq:lazy/${key}`, external: true } : undefined;
    });
  },
});
const common = { bundle: true, platform: 'node', target: 'node20', legalComments: 'none', logLevel: 'warning' };
const { version } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
const define = { MQ_VERSION: JSON.stringify(version) };
const [bundles, meta] = [{}, {}];
async function bundle(name, files, extra = {}) {
  const key = name === 'cli' ? name : `lazy/${name}`;
  const exports = files.map((f) => `export * from ${JSON.stringify(src(f))};`).join('\n');
  const r = await build({
    ...{ ...common, ...extra, format: 'cjs', minify: !process.env.MQ_BUILD_PLAIN, write: false, metafile: true },
    stdin: { contents: name === 'cli-table3' ? 'module.exports = require("cli-table3");' : exports, resolveDir: root },
    // The loader runs bundles as scripts, where Node 20 has no `import()`: dynamic imports become requires.
    supported: { 'dynamic-import': false },
    plugins: [lazyImports(name), standIns, englishOnlyZod],
    define: { ...define, ...extra.define },
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
await bundle('cli', ['cli.ts']);
// The planner finds its worker next to its own file: import.meta.url is the bundle's URL.
const urlBanner = { js: 'var __mqUrl = require("node:url").pathToFileURL(__filename).href;' };
const fileUrl = { define: { 'import.meta.url': '__mqUrl' }, banner: urlBanner };
for (const [name, files] of Object.entries(LAZY)) await bundle(name, files, name === 'planner' ? fileUrl : {});
const worker = await build({
  ...{ ...common, format: 'esm', minify: true, define, plugins: [englishOnlyZod], metafile: true, outdir: 'dist/lazy' },
  entryPoints: { 'planner-worker': 'src/planner/worker.ts' },
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
});
Object.assign(meta, worker.metafile.outputs);
await build({
  ...{ ...common, format: 'cjs', minify: true, outdir: 'dist', outExtension: { '.js': '.cjs' } },
  entryPoints: { main: 'src/main.ts' },
  define: { ...define, MQ_BUNDLES: JSON.stringify(bundles) },
});
// Which sources each output holds, for test/e2e/startup-loads.test.ts; not shipped.
mkdirSync(resolve(root, 'node_modules/.cache/mq-build'), { recursive: true });
writeFileSync(resolve(root, 'node_modules/.cache/mq-build/meta.json'), JSON.stringify({ outputs: meta }));
await buildLib();
