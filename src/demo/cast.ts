/** The demo's queue and its eight pull requests: one breaks the build, one has a flaky test. */
export interface DemoPr {
  number: number;
  title: string;
  author: string;
  breaksBuild?: boolean;
  outcomes?: Array<'pass' | 'fail'>;
  testMinutes: number;
  note?: string;
}

export const DEMO_REPO = { host: 'github.com', owner: 'acme', name: 'rocket' };
export const DEMO_BRANCH = 'main';

/** Concurrency 3 with pending failure depth 1 and optimistic merging: the anti-flake set-up. */
export const DEMO_QUEUE_SETTINGS = {
  concurrency: 3,
  pendingFailureDepth: 1,
  canOptimisticallyMerge: true,
  requiredStatuses: ['ci/test'],
};

export const DEMO_PRS: DemoPr[] = [
  { number: 101, title: 'Add retry budget to the HTTP client', author: 'ada', testMinutes: 12 },
  { number: 102, title: 'Cache compiled templates', author: 'grace', testMinutes: 9 },
  {
    number: 103,
    title: 'Rename the billing job',
    author: 'linus',
    breaksBuild: true,
    testMinutes: 10,
    note: 'breaks the build',
  },
  { number: 104, title: 'Bump the TLS library', author: 'barbara', testMinutes: 11 },
  {
    number: 105,
    title: 'Speed up the search index',
    author: 'ken',
    outcomes: ['fail'],
    testMinutes: 10,
    note: 'flaky test fails once',
  },
  { number: 106, title: 'Fix the dark mode toggle', author: 'margaret', testMinutes: 8 },
  { number: 107, title: 'Document the release train', author: 'dennis', testMinutes: 7 },
  { number: 108, title: 'Drop the legacy exporter', author: 'frances', testMinutes: 10 },
];
