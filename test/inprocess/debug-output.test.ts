import { describe, expect, it } from 'vitest';
import { useFakeServer } from '../helpers/fake-server.js';
import { runMq } from '../helpers/in-process.js';
import { baseEnv, TOKEN } from '../helpers/run-cli.js';

const fake = useFakeServer();

describe('--debug with a hostile service', () => {
  it('logs the answer with its control characters made visible, never raw', async () => {
    // OSC 52 (write the clipboard), clear screen, a bidi override.
    fake.on('POST /getSubmittedPullRequest', { status: 400, body: 'nope \x1b]52;c;ZXZpbA==\x07\x1b[2J\u202e gnp.exe' });
    const r = await runMq(['status', '42', '--debug'], { env: baseEnv(fake.url) });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('mq: debug: < nope');
    expect(r.stderr).not.toMatch(/[\x1b\x07\u202e]/);
    expect(r.stderr).toContain('\\x1b]52;c;');
    expect(r.stderr).not.toContain(TOKEN);
  });
});
