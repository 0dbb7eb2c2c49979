/**
 * What `mq status` and `mq queue stats` need once they run: fetching history, computing the figures
 * and their views. A lazily loaded bundle of its own, so other commands (and --help) do not parse it.
 */
export { computeStats, withoutTestingHistory } from './compute.js';
export { evaluateThresholds } from './fail-if.js';
export { fetchBatch, fetchStory, fetchWindow } from './fetch.js';
export { batchRow, storyJson } from './status-rows.js';
export { terminalCharts } from '../views/charts.js';
export { htmlReport } from '../views/stats-html.js';
export { crossedLines, groupedStatsFields, statsFields } from '../views/stats.js';
export { storyView } from '../views/story.js';
