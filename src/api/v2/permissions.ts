/** Key permissions as Trunk names them (Settings → Developer → API Keys). */
export const PERMISSION = {
  merge: 'Merge and cancel PRs',
  priority: 'Set priority on PRs',
  skipBatching: 'Skip batching',
  settings: 'Update Merge Queue settings',
} as const;
