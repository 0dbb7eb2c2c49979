// Bundles src/ into dist/ with esbuild. Code splitting keeps lazily imported modules (the emulator,
// tables, command bodies) in their own chunks so that `mq --version` loads almost nothing.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  chunkNames: 'chunks/[name]-[hash]',
  define: { MQ_VERSION: JSON.stringify(pkg.version) },
  // Bundled CommonJS dependencies call require(); give ESM output a real one.
  banner: { js: "import { createRequire as __mqCreateRequire } from 'node:module'; const require = __mqCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
