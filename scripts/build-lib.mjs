// Builds the library entry points, separate from the CLI's bundles (whose start-up they must not touch):
//   dist/lib/index.js      `import { MergeQueueClient } from 'mq-cli'`: the API client and HTTP layer only
//   dist/lib/emulator.js   `import { startEmulator } from 'mq-cli/emulator'`: the emulator as a test fixture
//   dist/types/lib/*.d.ts  their declarations
// `libBuildOptions()` is also used by test/lib to inspect what the bundles contain.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** zod ships every message locale; the library, like the CLI, only needs English. */
export const englishOnlyZod = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer)
        ? { path: resolve(args.resolveDir, '../locales/en.js'), namespace: 'zod-locales' }
        : undefined,
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
    banner: {
      js: "import { createRequire as __mqCreateRequire } from 'node:module'; const require = __mqCreateRequire(import.meta.url);",
    },
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

/**
 * Declarations of src/lib, file by file (TypeScript's isolated declaration emit: no program to
 * load, so it takes about a second instead of tsc's fifteen). The public files carry explicit
 * types, which that emit requires; a file that lacks them fails the build. Every relative import
 * of the output must stay inside dist/types/lib, so the shipped types need nothing else.
 */
async function emitDeclarations() {
  const { default: ts } = await import('typescript');
  const srcDir = resolve(root, 'src/lib');
  const outDir = resolve(root, 'dist/types/lib');
  mkdirSync(outDir, { recursive: true });
  const emitted = new Map();
  for (const name of readdirSync(srcDir)
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    const out = ts.transpileDeclaration(readFileSync(join(srcDir, name), 'utf8'), {
      fileName: name,
      reportDiagnostics: true,
      compilerOptions: {
        module: ts.ModuleKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        isolatedDeclarations: true,
        declaration: true,
        stripInternal: true,
      },
    });
    const problems = (out.diagnostics ?? []).map(
      (d) => `src/lib/${name}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
    if (problems.length > 0) throw new Error(`declarations:\n${problems.join('\n')}`);
    emitted.set(name.replace(/\.ts$/, '.d.ts'), out.outputText);
  }
  for (const [file, text] of emitted) {
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = m[1].replace(/^\.\//, '').replace(/\.js$/, '.d.ts');
      if (!emitted.has(target))
        throw new Error(`declarations: ${file} imports ${m[1]}, which is not part of the public types`);
    }
    writeFileSync(join(outDir, file), text);
  }
}

export async function buildLib() {
  rmSync(resolve(root, 'dist/lib'), { recursive: true, force: true });
  rmSync(resolve(root, 'dist/types'), { recursive: true, force: true });
  await build(libBuildOptions());
  await emitDeclarations();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildLib();
