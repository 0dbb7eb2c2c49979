// Builds the library entry points, separate from the CLI's bundles (whose start-up they must not touch):
//   dist/lib/index.js      `import { MergeQueueClient } from 'mq-cli'`: the API client and HTTP layer only
//   dist/lib/emulator.js   `import { startEmulator } from 'mq-cli/emulator'`: the emulator as a test fixture
//   dist/types/**.d.ts     their declarations (tsc), pruned to what the two entries reach
// `libBuildOptions()` is also used by test/lib to inspect what the bundles contain.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** zod ships every message locale; the library, like the CLI, only needs English. */
export const englishOnlyZod = {
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

export function nodeBundleOptions() {
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
  return {
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    // The bundles carry third-party code (undici, zod): keep their licence notices.
    legalComments: 'eof',
    define: { MQ_VERSION: JSON.stringify(pkg.version) },
    // Bundled CommonJS dependencies call require(); give ESM output a real one.
    banner: { js: "import { createRequire as __mqCreateRequire } from 'node:module'; const require = __mqCreateRequire(import.meta.url);" },
    plugins: [englishOnlyZod],
    logLevel: 'warning',
    absWorkingDir: root,
  };
}

export function libBuildOptions() {
  return {
    ...nodeBundleOptions(),
    entryPoints: { index: 'src/lib/index.ts', emulator: 'src/lib/emulator.ts' },
    outdir: 'dist/lib',
  };
}

/** Keeps only the declaration files the entries reach through their imports. */
function pruneDeclarations(dir, entries) {
  const keep = new Set();
  const queue = entries.map((e) => resolve(dir, e));
  while (queue.length > 0) {
    const file = queue.pop();
    if (keep.has(file) || !existsSync(file)) continue;
    keep.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      queue.push(resolve(dirname(file), m[1].replace(/\.js$/, '.d.ts')));
    }
  }
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) {
        walk(p);
        if (readdirSync(p).length === 0) rmSync(p, { recursive: true });
      } else if (!keep.has(p)) rmSync(p);
    }
  };
  walk(dir);
  return [...keep].map((f) => relative(dir, f)).sort();
}

export async function buildLib() {
  rmSync(resolve(root, 'dist/lib'), { recursive: true, force: true });
  rmSync(resolve(root, 'dist/types'), { recursive: true, force: true });
  await build(libBuildOptions());
  const tsc = resolve(root, 'node_modules/typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.lib.json'], { cwd: root, stdio: 'inherit' });
  pruneDeclarations(resolve(root, 'dist/types'), ['lib/index.d.ts', 'lib/emulator.d.ts']);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildLib();
