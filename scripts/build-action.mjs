// Bundles the GitHub Action (src/action/index.ts) into one committed file, action/dist/index.js,
// which the runner starts with `node` (action.yml: runs.using node24, so the target is node24). Deterministic: the same
// sources give the same bytes, so test/action compares a fresh in-memory build with the commit.
//   node scripts/build-action.mjs             writes action/dist/index.js
//   node scripts/build-action.mjs --outdir D  writes D/index.js instead
import { build } from 'esbuild';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { nodeBundleOptions } from './build-lib.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export function actionBuildOptions(outdir = 'action/dist') {
  return {
    ...nodeBundleOptions(),
    target: 'node24',
    entryPoints: { index: 'src/action/index.ts' },
    outdir,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const i = process.argv.indexOf('--outdir');
  const outdir = i > 0 ? resolve(process.argv[i + 1] ?? '') : resolve(root, 'action/dist');
  await build(actionBuildOptions(outdir));
}
