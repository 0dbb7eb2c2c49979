/** The small `mq queue simulate` workload the spawned tests share: a day of 6 PRs an hour, 3 runs. */
export const SMALL_SIMULATION = [
  '--arrivals',
  '6/h',
  '--test-time',
  '30m',
  '--failure-rate',
  '5%',
  '--flake-rate',
  '2%',
  '--duration',
  '1d',
  '--runs',
  '3',
];
