// Builds dist/ with esbuild in three parts, shaped for start-up time:
//   dist/main.js    tiny entry: answers --version, else imports cli.js
//   dist/cli.js     one file with every command (fewest modules for Node's ESM loader to fetch)
//   dist/lazy/*.js  what only some commands need, loaded on first use: the API client and HTTP
//                   layer (zod, undici), the emulator, the Prometheus parser, completions, conf,
//                   cli-table3. These files carry their own copy of small shared modules; the
//                   error classes are branded so `instanceof` works across copies.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
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
  'planner-worker': 'src/planner/worker.ts',
  describe: 'src/help/describe.ts',
  completion: 'src/completion/generate.ts',
  conf: 'conf',
  'cli-table3': 'cli-table3',
};
const lazyBySource = new Map(Object.entries(LAZY).filter(([, src]) => src.startsWith('src/')).map(([name, src]) => [resolve(root, src), name]));
const lazyByPackage = new Map(Object.entries(LAZY).filter(([, src]) => !src.startsWith('src/')).map(([name, src]) => [src, name]));

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  define: { MQ_VERSION: JSON.stringify(pkg.version) },
  // Bundled CommonJS dependencies call require(); give ESM output a real one.
  banner: { js: "import { createRequire as __mqCreateRequire } from 'node:module'; const require = __mqCreateRequire(import.meta.url);" },
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
await build({ ...common, entryPoints: { cli: 'src/cli.ts' }, outdir: 'dist', plugins: [lazyImports('./lazy/')] });
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

await build({
  ...common,
  entryPoints: LAZY,
  plugins: [englishOnlyZod],
  outdir: 'dist/lazy',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
});

// The library entry points (`mq-cli`, `mq-cli/emulator`), separate bundles: see build-lib.mjs.
const { buildLib } = await import('./build-lib.mjs');
await buildLib();
