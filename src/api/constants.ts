/**
 * Wire vocabulary, kept free of zod so argument parsing stays cheap to load. Defined once, in the
 * engine's vocabulary (which imports nothing), for the client and the emulator alike.
 */
export {
  DIRECT_MERGE_MODES,
  MAX_U32,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  PR_STATES,
  PRIORITY_NAMES,
  PRIORITY_VALUES,
  QUEUE_MODES,
  QUEUE_STATES,
  REQUESTABLE_QUEUE_STATES,
} from '../emulator/engine/vocabulary.js';

/** A commit id as the service matches it: 7 to 64 hex digits (abbreviated, SHA-1 or SHA-256). */
export const COMMIT_SHA = /^[0-9a-fA-F]{7,64}$/;

/** A GitHub Actions workflow run id (GITHUB_RUN_ID): a fork PR's credential for setImpactedTargets. */
export const WORKFLOW_RUN_ID = /^[1-9]\d{0,19}$/;
