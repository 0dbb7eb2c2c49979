/**
 * The `/v1` endpoints: the spec's eleven, plus the v1 read endpoints that hold history
 * (listPullRequests, getSubmittedPullRequests, listMergeQueueTestingResults). Each one validates
 * (schemas.ts), calls the engine with the request's time and spells the answer as the service does
 * (wire.ts); mutations answer `OK`.
 */
import { HttpError, OK } from './respond.js';
import { renderMetrics, METRICS_CONTENT_TYPE } from './metrics.js';
import { forkedRunAuth, kept, route, type Route } from './route.js';
import * as s from './schemas.js';
import { wireEntry, wirePullRequest, wireQueueSettings } from './wire.js';
import { wireTestingDetails, wireTestingResult } from './wire-runs.js';

const time = (v: string | undefined): number | undefined => (v === undefined ? undefined : Date.parse(v));

export const apiRoutes: Route[] = [
  route('POST', '/v1/submitPullRequest', s.submitRequest, true, (c, b) => {
    c.engine.submit(b, c.now);
    return OK;
  }),
  route('POST', '/v1/cancelPullRequest', s.prRequest, true, (c, b) => {
    c.engine.cancel(b, c.now);
    return OK;
  }),
  route('POST', '/v1/restartTestsOnPullRequest', s.prRequest, true, (c, b) => {
    c.engine.restart(b, c.now);
    return OK;
  }),
  kept(
    route('POST', '/v1/getSubmittedPullRequest', s.getPullRequestRequest, false, (c, b) => ({
      json: wirePullRequest(c.engine.getSubmittedPullRequest(b, c.now), b.repo),
    })),
  ),
  route('POST', '/v1/getSubmittedPullRequests', s.getPullRequestsRequest, false, (c, b) => {
    const { pullRequests, notFound } = c.engine.getSubmittedPullRequests(b, c.now);
    return {
      json: {
        pullRequests: pullRequests.map((p) => wirePullRequest(p, b.repo)),
        notFound: notFound.map((number) => ({ number })),
      },
    };
  }),
  route('POST', '/v1/listPullRequests', s.listPullRequestsRequest, false, (c, b) => {
    const { since, until, ...rest } = b;
    const page = c.engine.listPullRequests({ ...rest, since: time(since), until: time(until) }, c.now);
    return {
      json: {
        pullRequests: page.pullRequests.map(wireEntry),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      },
    };
  }),
  route('POST', '/v1/listMergeQueueTestingResults', s.testingResultsRequest, false, (c, b) => {
    const { since, until, ...rest } = b;
    const { results, total } = c.engine.listTestingResults({ ...rest, since: time(since), until: time(until) }, c.now);
    return { json: { testingResults: results.map(wireTestingResult), totalItems: total } };
  }),
  forkedRunAuth(
    route('POST', '/v1/setImpactedTargets', s.impactedTargetsRequest, true, (c, b) => {
      c.engine.setImpactedTargets(b, c.now);
      return OK;
    }),
  ),
  route('POST', '/v1/getMergeQueueTestingDetails', s.testingDetailsRequest, false, (c, b) => ({
    json: wireTestingDetails(c.engine.getTestingDetails(b, c.now)),
  })),
  route('POST', '/v1/createQueue', s.createQueueRequest, true, (c, b) => {
    c.engine.createQueue(b, c.now);
    return OK;
  }),
  route('POST', '/v1/deleteQueue', s.queueRequest, true, (c, b) => {
    c.engine.deleteQueue(b, c.now);
    return OK;
  }),
  route('POST', '/v1/getQueue', s.queueRequest, false, (c, b) => {
    const q = c.engine.getQueue(b, c.now);
    return { json: { ...wireQueueSettings(q), enqueuedPullRequests: q.entries.map(wireEntry) } };
  }),
  route('POST', '/v1/updateQueue', s.updateQueueRequest, true, (c, b) => ({
    json: wireQueueSettings(c.engine.updateQueue(b, c.now)),
  })),
  route('GET', '/v1/getMergeQueueMetrics', undefined, false, async (c) => {
    const repo = c.url.searchParams.get('repo');
    const host = c.url.searchParams.get('repoHost');
    if (repo !== null && host === null) throw new HttpError(400, 'repoHost: required when repo is given');
    if (host !== null && repo === null) throw new HttpError(400, 'repo: required when repoHost is given');
    let filter: { host: string; owner: string; name: string } | undefined;
    if (repo !== null && host !== null) {
      const m = /^([^/\s]+)\/([^/\s]+)$/.exec(repo);
      if (!m || host === '') throw new HttpError(400, 'repo: expected owner/name, with a non-empty repoHost');
      filter = { host, owner: m[1] as string, name: m[2] as string };
    }
    const text = await renderMetrics(c.engine.metrics(c.now, filter));
    return { text, contentType: METRICS_CONTENT_TYPE };
  }),
];
