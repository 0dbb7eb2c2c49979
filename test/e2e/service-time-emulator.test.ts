/**
 * Against the emulator on a manual clock, ages are the emulator's: it sends its emulated time in the
 * `Date` header, and the built binary counts from it, not from this machine's clock. After PR #1
 * merges, the emulator's clock is moved 90 minutes on (no wall time passes), so the PR has been
 * merged for about 1h 30m in the service's time and for a few seconds in the local one. On v1 and v2.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { APIS, useEmulatorProcess } from '../helpers/emulator-process.js';
import { runCli } from '../helpers/run-cli.js';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const ADVANCE_MINUTES = 90;

describe.each(APIS)('on %s', { concurrent: true }, (on) => {
  const emu = useEmulatorProcess(['--clock', 'manual'], on);

  beforeAll(async () => {
    await emu.post('createQueue', { repo: REPO, targetBranch: 'main' });
    await emu.control('POST', '/_emulator/pullRequests', { repo: REPO, number: 1, title: 'PR 1' });
    await emu.post('submitPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: 1 } });
    await emu.advance(15);
  }, 60_000);

  describe.sequential('ages against the emulator on a manual clock', () => {
    it(`mq status: in state for is the emulator's time since the merge, ${ADVANCE_MINUTES} minutes on`, async () => {
      const record = (await emu.post('getSubmittedPullRequest', {
        repo: REPO,
        targetBranch: 'main',
        pr: { number: 1 },
      })) as {
        state: string;
        stateChangedAt: string;
      };
      expect(record.state).toBe('merged');
      await emu.advance(ADVANCE_MINUTES);
      const expectedMinutes = ((await emu.now()) - Date.parse(record.stateChangedAt)) / 60_000;
      expect(expectedMinutes).toBeGreaterThanOrEqual(ADVANCE_MINUTES);

      const r = await runCli(['status', '1'], { env: emu.env });
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      const age = /^in_state_seconds\t(\d+)$/m.exec(r.stdout)?.[1];
      expect(age).toBeDefined();
      // The header names a whole second; allow a minute either side of the exact figure.
      expect(Math.abs(Math.floor(Number(age) / 60) - Math.floor(expectedMinutes))).toBeLessThanOrEqual(1);
    });
  });
});
