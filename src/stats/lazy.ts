// What `mq status`, `mq queue stats` and a requeue load when they run: a lazy bundle of its own
// (not parsed for --help).
export { computeStats, withoutTestingHistory } from './compute.js';
export { evaluateThresholds } from './fail-if.js';
export { fetchBatch, fetchStory, fetchWindow } from './fetch.js';
export { readFailure } from './failure-read.js';
export { batchRow, storyJson } from './status-rows.js';
export { terminalCharts } from '../views/charts.js';
export { htmlReport } from '../views/stats-html.js';
export { crossedLines, groupedStatsFields, statsFields } from '../views/stats.js';
export { storyView } from '../views/story.js';
export { dispatchSequence, NO_POSITION, positionOf } from './position.js';
export { positionJson, positionView } from '../views/position.js';
