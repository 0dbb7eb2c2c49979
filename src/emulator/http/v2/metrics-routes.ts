/**
 * Prometheus metrics over v2: v1's exposition (same names, help and labels), for every queue or
 * one repository's (`repositoryId`), or for one queue.
 */
import { METRICS_CONTENT_TYPE, renderMetrics } from '../metrics.js';
import { at, queueOf, type V2Route } from './context.js';
import { V2Error } from './errors.js';
import { findRepository } from './ids.js';

export const metricsRoutes: V2Route[] = [
  {
    method: 'GET',
    path: at('merge-queues/metrics'),
    async handle(c) {
      const id = c.url.searchParams.get('repositoryId');
      const found = id === null ? undefined : findRepository(c.engine.state, id, c.repos.values());
      if (id !== null && !found) throw new V2Error('REPOSITORY_NOT_FOUND', `no repository has id ${id.slice(0, 100)}`);
      const text = await renderMetrics(c.engine.metrics(c.now, found?.repo));
      return { text, contentType: METRICS_CONTENT_TYPE };
    },
  },
  {
    method: 'GET',
    path: at('merge-queues/{id}/metrics'),
    async handle(c) {
      const q = queueOf(c);
      const text = await renderMetrics(c.engine.metrics(c.now, q.repo).filter((s) => s.branch === q.branch));
      return { text, contentType: METRICS_CONTENT_TYPE };
    },
  },
];
