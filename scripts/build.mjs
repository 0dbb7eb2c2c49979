// Builds dist/ with esbuild, shaped for start-up time:
//   dist/main.js     tiny entry: answers --version, else imports cli.js
//   dist/cli.js      the entry of the command line; with code splitting, what every command line
//                    needs (commander, the root program and its manifest, the presenter, the context)
//                    is one chunk, and each top-level command is a chunk of its own (dist/*-HASH.js),
//                    imported only when the command line names it (src/program.ts)
//   dist/lazy/*.js   what only some commands need, loaded on first use: api.js, one file with what
//                    a read command needs (the HTTP layer with the node:http transport, the API
//                    client on zod's mini API, the stats fetchers; the undici transport, only when
//                    a proxy applies, is transport-undici.js), the emulator (built apart: classic zod), the planner, the Prometheus
//                    parser, completions, the config writer (conf), cli-table3. These files carry their
//                    own copy of small shared modules; the error classes are branded so `instanceof`
//                    works across copies.
// The metafile (which sources each output holds) goes to node_modules/.cache/mq-build/meta.json for
// test/e2e/startup-loads.test.ts.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
rmSync(resolve(root, 'dist'), { recursive: true, force: true });

/** Lazily imported modules: output name -> source file or package. */
const LAZY = {
  client: 'src/api/client.ts',
  http: 'src/api/http.ts',
  prometheus: 'src/api/prometheus.ts',
  'merge-queue-metrics': 'src/api/merge-queue-metrics.ts',
  emulator: 'src/emulator/index.ts',
  planner: 'src/planner/index.ts',
  stats: 'src/stats/lazy.ts',
  'planner-worker': 'src/planner/worker.ts',
  describe: 'src/help/describe.ts',
  completion: 'src/completion/generate.ts',
  'config-write': 'src/config/write.ts',
  'cli-table3': 'cli-table3',
};
/**
 * Lazy modules that load together, as one file: a read command (`mq status 1`) needs the HTTP layer,
 * the client and the stats fetchers, and each further file costs Node's ESM loader a resolve, a read
 * and a link (about 1.5 ms a file on this machine). Output name -> the LAZY names it holds.
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

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  define: { MQ_VERSION: JSON.stringify(pkg.version) },
  // Bundled CommonJS dependencies call require() (and may read __filename); give ESM output real ones.
  banner: {
    js: "import { createRequire as __mqCreateRequire } from 'node:module'; import { fileURLToPath as __mqFileURLToPath } from 'node:url'; const require = __mqCreateRequire(import.meta.url); const __filename = __mqFileURLToPath(import.meta.url);",
  },
  logLevel: 'warning',
  absWorkingDir: root,
};

/** Turns cli.js's dynamic imports of lazy modules into imports of their files under `prefix`. */
function lazyImports(prefix) {
  return {
    name: 'lazy-imports',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        const pkgName = lazyByPackage.get(args.path);
        if (pkgName) return { path: `${prefix}${pkgName}.js`, external: true };
        if (!args.path.startsWith('.')) return undefined;
        const source = resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
        const name = lazyBySource.get(source);
        return name ? { path: `${prefix}${name}.js`, external: true } : undefined;
      });
    },
  };
}

await build({
  ...common,
  banner: undefined,
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  plugins: [{ name: 'cli-external', setup: (b) => b.onResolve({ filter: /^\.\/cli\.js$/ }, () => ({ path: './cli.js', external: true })) }],
});
/**
 * Each command module (and anything else cli.js imports dynamically) is its own chunk, loaded when
 * the command line names it (src/program.ts). Every such chunk also imports the entry, so all the
 * entry loads anyway (commander, the presenter, the context, config resolution, the commands'
 * shared helpers) is used by the same set of entry points and lands in one chunk, instead of one
 * chunk per combination of commands that share a module: `mq status 1` loads main.js, cli.js, that
 * chunk, the status chunk and one chunk of views.
 */
const CLI_ENTRY = ['src/cli.ts', 'src/commands/shared.ts'].map((f) => resolve(root, f));
const commandChunks = {
  name: 'command-chunks',
  setup(b) {
    b.onResolve({ filter: /^mq-cli-entry$/ }, () => ({ path: 'cli', namespace: 'mq-entry' }));
    b.onLoad({ filter: /.*/, namespace: 'mq-entry' }, () => ({
      contents: `export * from ${JSON.stringify(CLI_ENTRY[0])};\n${CLI_ENTRY.slice(1)
        .map((f) => `import ${JSON.stringify(f)};`)
        .join('\n')}`,
      resolveDir: root,
      loader: 'js',
    }));
    b.onResolve({ filter: /^\./ }, (args) =>
      args.kind === 'dynamic-import' && args.namespace === 'file'
        ? { path: resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts')), namespace: 'mq-chunk' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'mq-chunk' }, (args) => ({
      contents: `${CLI_ENTRY.map((f) => `import ${JSON.stringify(f)};`).join('\n')}\nexport * from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

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

const cliBuild = await build({
  ...common,
  entryPoints: { cli: 'mq-cli-entry' },
  outdir: 'dist',
  plugins: [lazyImports('./lazy/'), commandChunks, lazyChildProcess],
  // Per-command chunks next to cli.js, so './lazy/…' means the same from every file.
  splitting: true,
  chunkNames: '[name]-[hash]',
  metafile: true,
});
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

/**
 * The emulator validates requests with classic zod, the client with zod's mini API: built together,
 * their shared chunk would hold all of zod's core for every API command. So the emulator is built
 * apart (one file, its own copy of what it shares with the rest).
 */
const SEPARATE = new Set(['emulator']);
/** Each group is one entry: a module re-exporting its members. */
const groupEntries = {
  name: 'lazy-groups',
  setup(b) {
    b.onResolve({ filter: /^mq-group:/ }, (args) => ({ path: args.path.slice('mq-group:'.length), namespace: 'mq-group' }));
    b.onLoad({ filter: /.*/, namespace: 'mq-group' }, (args) => ({
      contents: [...GROUPS[args.path].map((name) => LAZY[name]), ...(GROUP_SHARES[args.path] ?? [])]
        .map((src) => `export * from ${JSON.stringify(resolve(root, src))};`)
        .join('\n'),
      resolveDir: root,
      loader: 'js',
    }));
  },
};
/**
 * Every API command sends over the node:http transport (undici only behind a proxy): http.ts's
 * dynamic import of it becomes a static one, so it is part of the api file instead of a chunk of
 * its own.
 */
const TRANSPORT_NODE_IMPORT = "import('./transport-node.js')";
const staticNodeTransport = {
  name: 'static-node-transport',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]api[\\/]http\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes(TRANSPORT_NODE_IMPORT)) throw new Error(`${args.path} no longer contains ${TRANSPORT_NODE_IMPORT}: update scripts/build.mjs`);
      return {
        contents: `import * as __mqTransportNode from './transport-node.js';\n${text.replace(TRANSPORT_NODE_IMPORT, 'Promise.resolve(__mqTransportNode)')}`,
        loader: 'ts',
      };
    });
  },
};
/**
 * The undici transport (loaded only behind a proxy) is a file of its own next to api.js and takes
 * the transport module (the error class http.ts tests with `instanceof`) from api.js, which
 * re-exports it: api.js then needs no chunk.
 */
const GROUP_SHARES = { api: ['src/api/transport.ts'] };
const undiciApart = {
  name: 'undici-transport-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/transport-undici\.js$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: './transport-undici.js', external: true } : undefined,
    );
    b.onResolve({ filter: /^\.\/transport\.js$/ }, (args) =>
      /[\\/]transport-undici\.ts$/.test(args.importer) ? { path: './api.js', external: true } : undefined,
    );
  },
};
const grouped = new Set(groupOf.keys());
const lazyBuild = await build({
  ...common,
  entryPoints: {
    ...Object.fromEntries(Object.entries(LAZY).filter(([name]) => !SEPARATE.has(name) && !grouped.has(name))),
  },
  plugins: [englishOnlyZod, confWithoutSchema],
  outdir: 'dist/lazy',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
});
/**
 * The groups are built apart from the other lazy modules, so that what they share with those (the
 * error classes, small helpers) is copied in instead of split into chunks the read path would load;
 * without code splitting each group is exactly one file. The undici transport is built next to them
 * and imports the transport module from api.js (see undiciApart).
 */
const groupBuild = await build({
  ...common,
  entryPoints: Object.fromEntries(Object.keys(GROUPS).map((group) => [group, `mq-group:${group}`])),
  plugins: [groupEntries, staticNodeTransport, undiciApart, englishOnlyZod, confWithoutSchema],
  outdir: 'dist/lazy',
  metafile: true,
});
const undiciBuild = await build({
  ...common,
  entryPoints: { 'transport-undici': 'src/api/transport-undici.ts' },
  plugins: [undiciApart],
  outdir: 'dist/lazy',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
});
const separateBuild = await build({
  ...common,
  entryPoints: Object.fromEntries(Object.entries(LAZY).filter(([name]) => SEPARATE.has(name))),
  plugins: [englishOnlyZod, confWithoutSchema],
  outdir: 'dist/lazy',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
});

// Which sources each output file holds (test/e2e/startup-loads.test.ts reads it); not shipped.
mkdirSync(resolve(root, 'node_modules/.cache/mq-build'), { recursive: true });
writeFileSync(
  resolve(root, 'node_modules/.cache/mq-build/meta.json'),
  JSON.stringify({
    outputs: {
      ...cliBuild.metafile.outputs,
      ...lazyBuild.metafile.outputs,
      ...groupBuild.metafile.outputs,
      ...undiciBuild.metafile.outputs,
      ...separateBuild.metafile.outputs,
    },
  }),
);

// The library entry points (`mq-cli`, `mq-cli/emulator`), separate bundles: see build-lib.mjs.
const { buildLib } = await import('./build-lib.mjs');
await buildLib();
