// "Is this credential good?" with one read, on either wire; v2 may also probe whether the key can write.
import { ExitCode, MqError } from '../errors.js';
import type { CallOptions } from './http.js';
import type { RepoRef } from './schemas.js';

export interface CredentialCheckRequest {
  repo: RepoRef;
  targetBranch: string;
  /** v2: also probe whether the key may merge and cancel PRs (one more request, in parallel). */
  probeWrite?: boolean;
}

/** A write probe's outcome: never a change (it acts on an id that cannot exist). */
export interface WriteProbe {
  /** The key permission probed, as Trunk names it. */
  permission: string;
  verdict: 'allowed' | 'refused' | 'not checked';
  /** What the probe answered, e.g. `probe answered 404, not 403`. */
  detail: string;
  /** What was sent, e.g. `POST /v2/pull-requests/<id>/dequeue`. */
  probe: string;
}

export interface CredentialCheck {
  /** Only on v2, when asked for (v1 tokens have no permissions to probe). */
  write?: WriteProbe;
}

/** A refusal of the probe that still proves the credential: not found (404) or invalid (400). */
export function acceptedRefusal(err: unknown): boolean {
  return err instanceof MqError && (err.exitCode === ExitCode.notFound || err.exitCode === ExitCode.rejected);
}

/** v1: PR 0 of the queue (never a real PR) answers 404 or 400 to a good token, 401 or 403 to a bad one. */
export async function checkV1Credential(
  client: {
    getSubmittedPullRequest(
      req: { repo: RepoRef; targetBranch: string; pr: { number: number } },
      call?: CallOptions,
    ): Promise<unknown>;
  },
  req: CredentialCheckRequest,
  call?: CallOptions,
): Promise<CredentialCheck> {
  try {
    await client.getSubmittedPullRequest({ repo: req.repo, targetBranch: req.targetBranch, pr: { number: 0 } }, call);
  } catch (err) {
    if (!acceptedRefusal(err)) throw err;
  }
  return {};
}
