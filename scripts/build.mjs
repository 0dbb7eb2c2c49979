// Builds dist/ with esbuild, shaped for start-up time on Node 20, which has no compile cache for ES
// modules: the CLI is CommonJS bundles that src/boot/bundles.ts runs as V8 scripts with a code cache.
//   dist/main.cjs       tiny entry: answers --version, else loads the CLI bundle
//   dist/cli.cjs        the core: what every command line needs (commander, the root program and its
//                       manifest, the presenter, the context, config resolution, the commands'
//                       shared helpers)
//   dist/cmd/NAME.cjs   each top-level command, loaded when the command line names it (src/program.ts)
//   dist/lazy/NAME.cjs  what only some commands need, loaded on first use: api (the HTTP layer with the
//                       node:http transport, the API client on zod's mini API, the stats fetchers),
//                       transport-undici (only when a proxy applies), the emulator (classic zod), the
//                       planner, the Prometheus parser, completions, the config writer (conf),
//                       cli-table3
//   dist/lazy/planner-worker.js  the planner's worker thread (an ES module of its own)
// A module of the core is imported from the core by every other bundle, so a process holds one copy
// of it (`require('mq:cli').__mq_modules[ID]`, evaluated on first use); the api bundle shares its
// transport module the same way; other small modules are copied into each bundle that imports them.
// A dynamic import of a command or lazy module becomes `require('mq:cmd/NAME')` /
// `require('mq:lazy/NAME')`, which the loader resolves. The metafile (which sources each output
// holds) goes to node_modules/.cache/mq-build/meta.json for test/e2e/startup-loads.test.ts.
// MQ_BUILD_PLAIN=1 leaves the bundles unminified (readable names in a CPU profile).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
rmSync(resolve(root, 'dist'), { recursive: true, force: true });

/** Lazily imported modules: bundle name -> source file or package. */
const LAZY = {
  client: 'src/api/client.ts',
  http: 'src/api/http.ts',
  'transport-undici': 'src/api/transport-undici.ts',
  prometheus: 'src/api/prometheus.ts',
  'merge-queue-metrics': 'src/api/merge-queue-metrics.ts',
  emulator: 'src/emulator/index.ts',
  planner: 'src/planner/index.ts',
  stats: 'src/stats/lazy.ts',
  describe: 'src/help/describe.ts',
  completion: 'src/completion/generate.ts',
  'config-write': 'src/config/write.ts',
  'cli-table3': 'cli-table3',
};
/**
 * Lazy modules that load together, as one bundle: a read command (`mq status 1`) needs the HTTP
 * layer, the client and the stats fetchers. Bundle name -> the LAZY names it holds.
 */
const GROUPS = { api: ['http', 'client', 'stats'] };
const groupOf = new Map(Object.entries(GROUPS).flatMap(([group, names]) => names.map((n) => [n, group])));
const lazyBySource = new Map(
  Object.entries(LAZY)
    .filter(([, src]) => src.startsWith('src/'))
    .map(([name, src]) => [resolve(root, src), groupOf.get(name) ?? name]),
);
const lazyByPackage = new Map(
  Object.entries(LAZY)
    .filter(([, src]) => !src.startsWith('src/'))
    .map(([name, src]) => [src, name]),
);
/** The top-level command modules, as src/program.ts imports them: source -> bundle key. */
const PROGRAM = resolve(root, 'src/program.ts');
const COMMANDS = new Map(
  [...readFileSync(PROGRAM, 'utf8').matchAll(/import\('\.\/(commands\/[\w/-]+)\.js'\)/g)].map(([, path]) => [
    resolve(root, `src/${path}.ts`),
    `cmd/${path.replace(/^commands\//, '').replace(/\/index$/, '')}`,
  ]),
);
if (COMMANDS.size < 10) throw new Error('scripts/build.mjs: the command imports of src/program.ts were not found');

const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: !process.env.MQ_BUILD_PLAIN,
  legalComments: 'none',
  define: { MQ_VERSION: JSON.stringify(pkg.version) },
  // The loader runs bundles as scripts, where `import()` is not available on Node 20: every dynamic
  // import becomes a require (of a built-in, of code in the same bundle, or of another bundle).
  supported: { 'dynamic-import': false },
  logLevel: 'warning',
  absWorkingDir: root,
  write: false,
  metafile: true,
};

/** Dynamic imports of lazy modules and commands become requires of their bundles. */
function bundleImports(self) {
  return {
    name: 'bundle-imports',
    setup(b) {
      b.onResolve({ filter: /^mq:/ }, (args) => ({ path: args.path, external: true }));
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        const pkgName = lazyByPackage.get(args.path);
        if (pkgName) return { path: `mq:lazy/${pkgName}`, external: true };
        if (!args.path.startsWith('.')) return undefined;
        const source = resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
        const lazy = lazyBySource.get(source);
        if (lazy && `lazy/${lazy}` !== self) return { path: `mq:lazy/${lazy}`, external: true };
        if (args.importer === PROGRAM && COMMANDS.has(source)) return { path: `mq:${COMMANDS.get(source)}`, external: true };
        return undefined;
      });
    },
  };
}

/** Imports of a module another bundle owns become `require('mq:OWNER').__mq_modules[ID]`. */
function ownedElsewhere(owners) {
  return {
    name: 'owned-elsewhere',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (owners.length === 0 || args.pluginData?.mqSkip || args.namespace !== 'file') return undefined;
        if (args.kind !== 'import-statement' && args.kind !== 'require-call' && args.kind !== 'dynamic-import') return undefined;
        const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { mqSkip: true } });
        if (r.errors.length > 0 || r.external || r.namespace !== 'file') return undefined;
        const id = relative(root, r.path);
        const owner = owners.find((o) => o.ids.has(id));
        // The path ends in .cjs: esbuild takes the file type from it (commander's entry is a .mjs).
        return owner ? { path: `${id}.owned.cjs`, namespace: 'mq-owned', pluginData: { owner: owner.key, id } } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'mq-owned' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(`mq:${args.pluginData.owner}`)}).__mq_modules[${JSON.stringify(args.pluginData.id)}];`,
        loader: 'js',
      }));
    },
  };
}

/**
 * commander requires node:child_process at load for executable subcommands, which mq does not
 * have; loading that built-in costs ~4 ms of every start. It is deferred to first use.
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'child_process', namespace: 'lazy-builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, () => ({
      contents: "let m; module.exports = new Proxy({}, { get: (_, key) => (m ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
  },
};
/**
 * chalk detects the terminal's colour support when it loads (tty.isatty, which loads node:net, the
 * environment, os.release): mq decides colour itself (src/output/io.ts colorWanted) and always
 * passes the level to `new Chalk({ level })`, so chalk's detection is replaced by "no support".
 */
const chalkWithoutDetection = {
  name: 'chalk-without-detection',
  setup(b) {
    b.onResolve({ filter: /^#supports-color$/ }, (args) =>
      /[\\/]node_modules[\\/]chalk[\\/]/.test(args.importer) ? { path: 'supports-color', namespace: 'chalk-no-detection' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'chalk-no-detection' }, () => ({
      contents: 'export function createSupportsColor() { return false; }\nexport default { stdout: false, stderr: false };',
      loader: 'js',
    }));
  },
};
/**
 * zod re-exports every message locale (about 260 KB minified) through `z.locales`; mq never switches
 * locale and zod configures English itself, so only English is bundled.
 */
const englishOnlyZod = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer) ? { path: resolve(args.resolveDir, '../locales/en.js'), namespace: 'zod-locales' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};
/**
 * conf imports ajv, ajv-formats and semver (about 180 KB minified) for its `schema` and
 * `migrations` options; mq uses neither (the store checks the file itself), so they are replaced
 * with stand-ins that throw if conf ever reaches them. The config writer's e2e tests run this build.
 */
const CONF_UNUSED = {
  'ajv/dist/2020.js': 'export class Ajv2020 { constructor() { unused("schema"); } }',
  'ajv-formats': 'export default { default: () => unused("schema") };',
  semver: 'export default new Proxy({}, { get: () => () => unused("migrations") });',
};
const confWithoutSchema = {
  name: 'conf-without-schema',
  setup(b) {
    b.onResolve({ filter: /^(ajv\/dist\/2020\.js|ajv-formats|semver)$/ }, (args) =>
      /[\\/]node_modules[\\/]conf[\\/]/.test(args.importer) ? { path: args.path, namespace: 'conf-unused' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'conf-unused' }, (args) => ({
      contents: `const unused = (option) => { throw new Error(\`conf's \${option} option is not bundled in mq\`); };\n${CONF_UNUSED[args.path]}`,
      loader: 'js',
    }));
  },
};

/** An entry that re-exports `sources` (and, for an owner, the namespace of each module it holds). */
function entryPlugin(key, sources, moduleIds) {
  return {
    name: 'mq-entry',
    setup(b) {
      b.onResolve({ filter: /^mq-entry:/ }, () => ({ path: key, namespace: 'mq-entry' }));
      b.onLoad({ filter: /.*/, namespace: 'mq-entry' }, () => {
        const [first, ...rest] = sources.map((src) => JSON.stringify(src.startsWith('src/') ? resolve(root, src) : src));
        // A package bundle exports what the package does (cli-table3: the Table class), as Node
        // would hand it to `import()`.
        if (!sources[0].startsWith('src/')) return { contents: `module.exports = require(${first});`, resolveDir: root, loader: 'js' };
        const lines = [`export * from ${first};`];
        // The core's other sources (the commands' shared helpers) are kept whole, not re-exported.
        for (const [i, src] of rest.entries()) lines.push(key === 'cli' ? `import * as __s${i} from ${src}; export { __s${i} };` : `export * from ${src};`);
        // Each module is evaluated when another bundle first asks for it, not when the owner loads:
        // the core holds the prompt reader, which `mq status` never runs.
        if (moduleIds) {
          const getters = moduleIds.map((id) => `get ${JSON.stringify(id)}() { return require(${JSON.stringify(resolve(root, id))}); }`);
          lines.push(`export const __mq_modules = { ${getters.join(', ')} };`);
        }
        return { contents: lines.join('\n'), resolveDir: root, loader: 'js' };
      });
    },
  };
}

/** The files that imports of packages by name resolve to (commander's, chalk's, zod/mini's entry). */
const packageEntries = new Set();
const recordPackageEntries = {
  name: 'record-package-entries',
  setup(b) {
    b.onResolve({ filter: /^[@\w]/ }, async (args) => {
      if (args.pluginData?.mqSkip || args.path.startsWith('node:') || args.namespace !== 'file') return undefined;
      const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { mqSkip: true } });
      if (r.errors.length === 0 && r.namespace === 'file' && !r.external) packageEntries.add(relative(root, r.path));
      return undefined;
    });
  },
};

const outputs = new Map();
const meta = {};
/** Builds bundle `key` (dist/KEY.cjs) from `sources`; an owner exports the namespaces of its modules. */
async function bundle(key, sources, { owners = [], owner = false, plugins = [], options = {} } = {}) {
  const run = (moduleIds) =>
    build({
      ...common,
      ...options,
      entryPoints: { [key]: `mq-entry:${key}` },
      outdir: 'dist',
      outExtension: { '.js': '.cjs' },
      plugins: [
        entryPlugin(key, sources, moduleIds),
        bundleImports(key),
        ...plugins,
        ownedElsewhere(owners),
        englishOnlyZod,
        confWithoutSchema,
        recordPackageEntries,
      ],
    });
  let result = await run(null);
  const inputsOf = (r) => Object.keys(Object.values(r.metafile.outputs)[0].inputs).filter((id) => /\.(m?[jt]s|cjs)$/.test(id) && existsSync(resolve(root, id)));
  let ids = null;
  if (owner) {
    // What other bundles can import from an owner: its sources and the entry files of the packages
    // it imports by name (the namespace of every file of a package would defeat tree shaking).
    // Exporting a module whole can bring in more modules: repeat until the set is stable. A module
    // with a default export is not shared: an import of it through require() would see the whole
    // module as its default (Node's interop), so a bundle that needs one keeps its own copy.
    const withDefault = async (ids) => {
      const r = await build({ ...common, bundle: false, format: 'esm', entryPoints: ids, outdir: 'mq-exports', logLevel: 'silent' });
      return new Set(Object.values(r.metafile.outputs).flatMap((o) => (o.exports.includes('default') && o.entryPoint ? [o.entryPoint] : [])));
    };
    const owned = async (r) => {
      // Packages are shared from the core only (commander, chalk).
      const all = inputsOf(r).filter((id) => (id.startsWith('src/') || (key === 'cli' && packageEntries.has(id))) && (owner === true || owner.includes(id)));
      const excluded = await withDefault(all);
      return all.filter((id) => !excluded.has(id));
    };
    ids = await owned(result);
    for (let round = 0; ; round++) {
      result = await run(ids);
      const next = await owned(result);
      if (next.length === ids.length) break;
      if (round === 3) throw new Error(`scripts/build.mjs: the modules of ${key} do not settle`);
      ids = next;
    }
  }
  const [file] = result.outputFiles;
  const [outName, out] = Object.entries(result.metafile.outputs)[0];
  // A dynamic import left in a bundle would fail under the loader (no import() in vm scripts on Node 20).
  const dynamic = out.imports.filter((i) => i.kind === 'dynamic-import');
  if (dynamic.length > 0) throw new Error(`scripts/build.mjs: ${key}.cjs still imports ${dynamic.map((i) => i.path).join(', ')} dynamically`);
  outputs.set(key, { file: `${key}.cjs`, text: file.text });
  meta[outName] = { inputs: Object.fromEntries(Object.entries(out.inputs).filter(([id]) => !id.startsWith('mq-owned:') && !id.startsWith('mq-entry:'))) };
  return ids === null ? null : { key, ids: new Set(ids) };
}

const core = await bundle('cli', ['src/cli.ts', 'src/commands/shared.ts'], { owner: true, plugins: [lazyChildProcess, chalkWithoutDetection] });
// The api bundle shares only the transport module (its error class, which the undici transport
// throws and the HTTP layer tests with instanceof): sharing more would keep whole modules (all of
// zod's mini API) in it; others copy the few api-side modules they import.
const api = await bundle(
  'lazy/api',
  GROUPS.api.map((name) => LAZY[name]),
  { owner: ['src/api/transport.ts'], owners: [core] },
);
const owners = [core, api];
// A command copies the few api-side modules it imports statically (queue settings, stats views)
// rather than loading the whole api bundle for `mq queue --help`.
for (const [source, key] of COMMANDS) await bundle(key, [relative(root, source)], { owners: [core] });
for (const [name, src] of Object.entries(LAZY)) {
  if (groupOf.has(name)) continue;
  // The planner finds its worker next to its own file: import.meta.url is the bundle's URL.
  const options =
    name === 'planner'
      ? {
          define: { ...common.define, 'import.meta.url': '__mqImportMetaUrl' },
          banner: { js: 'var __mqImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
        }
      : {};
  await bundle(`lazy/${name}`, [src], { owners, options });
}

const bundles = {};
for (const [key, { file, text }] of outputs) {
  mkdirSync(dirname(resolve(root, 'dist', file)), { recursive: true });
  writeFileSync(resolve(root, 'dist', file), text);
  bundles[key] = { file, hash: createHash('sha256').update(text).digest('hex').slice(0, 16) };
}

// The planner's worker thread: a self-contained ES module.
const workerBuild = await build({
  ...common,
  format: 'esm',
  supported: {},
  write: true,
  entryPoints: { 'planner-worker': 'src/planner/worker.ts' },
  outdir: 'dist/lazy',
  banner: {
    js: "import { createRequire as __mqCreateRequire } from 'node:module'; const require = __mqCreateRequire(import.meta.url);",
  },
});
Object.assign(meta, workerBuild.metafile.outputs);

await build({
  ...common,
  write: true,
  metafile: false,
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  define: { ...common.define, MQ_BUNDLES: JSON.stringify(bundles) },
});

// Which sources each output file holds (test/e2e/startup-loads.test.ts reads it); not shipped.
mkdirSync(resolve(root, 'node_modules/.cache/mq-build'), { recursive: true });
writeFileSync(resolve(root, 'node_modules/.cache/mq-build/meta.json'), JSON.stringify({ outputs: meta }));

// The library entry points (`mq-cli`, `mq-cli/emulator`), separate bundles: see build-lib.mjs.
const { buildLib } = await import('./build-lib.mjs');
await buildLib();
