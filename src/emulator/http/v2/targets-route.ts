/**
 * PUT /v2/impacted-targets: a PR's impacted targets for one head sha (`impactsAllTargets: true`
 * stands for v1's "ALL"), made through v1's setImpactedTargets. A PR is named by `number`, or by
 * `branch` (the emulator's PRs have head branch `pr-N`); 202 without a body.
 */
import { z } from 'zod';

import { EngineError } from '../../engine/index.js';
import { LIMITS } from '../schemas.js';
import { requirePermission } from './auth.js';
import { at, parse, type V2Route } from './context.js';
import { fromEngine, V2Error } from './errors.js';
import { findRepository } from './ids.js';

const body = z.strictObject({
  repositoryId: z.string().min(1),
  targetBranch: z.string().min(1).max(LIMITS.name),
  sha: z
    .string()
    .regex(/^[A-Za-z0-9]+$/)
    .max(LIMITS.sha),
  number: z.optional(z.int().gt(0).lte(10_000_000)),
  branch: z.optional(z.string().min(1).max(LIMITS.name)),
  impactedTargets: z.optional(z.array(z.string().min(1).max(LIMITS.target)).max(100_000)),
  impactsAllTargets: z.optional(z.literal(true)),
});

export const targetsRoute: V2Route = {
  method: 'PUT',
  path: at('impacted-targets'),
  body: true,
  async handle(c) {
    requirePermission(c.key, 'merge', 'upload impacted targets');
    const b = parse(body, c.body);
    if ((b.number === undefined) === (b.branch === undefined))
      throw new V2Error('VALIDATION_FAILED', 'number, branch: send exactly one');
    if ((b.impactedTargets === undefined) === (b.impactsAllTargets === undefined)) {
      throw new V2Error('VALIDATION_FAILED', 'impactedTargets, impactsAllTargets: send exactly one');
    }
    const found = findRepository(c.engine.state, b.repositoryId, c.repos.values());
    if (!found) throw new V2Error('REPOSITORY_NOT_FOUND', `no repository has id ${b.repositoryId}`);
    const number = b.number ?? Number(/^pr-([1-9]\d{0,7})$/.exec(b.branch ?? '')?.[1] ?? Number.NaN);
    if (!Number.isInteger(number))
      throw new V2Error('PR_NOT_FOUND', `no pull request has head branch ${b.branch ?? ''}`);
    const input = {
      repo: found.repo,
      targetBranch: b.targetBranch,
      pr: { number, sha: b.sha },
      impactedTargets: b.impactsAllTargets ? 'ALL' : (b.impactedTargets ?? []),
    };
    try {
      await c.change('/v1/setImpactedTargets', input);
    } catch (err) {
      throw err instanceof EngineError ? fromEngine(err, 'REPOSITORY_NOT_FOUND') : err;
    }
    return { status: 202 };
  },
};
