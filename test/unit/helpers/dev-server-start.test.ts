/**
 * The test helper's dev-server start retry (test/helpers/temporal.ts): a start cut short by the
 * SDK's 5 s startup deadline is tried again, anything else is not. Driven by a start function that
 * fails on cue, since a real slow start cannot be produced on demand.
 */
import { DEV_SERVER_START_ATTEMPTS, retryDevServerStart } from '../../helpers/temporal';

/** A start that throws `errors` in turn, then answers `'started'`; counts its calls. */
function startFailing(errors: Error[]): { start: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    start: async () => {
      const err = errors[calls++];
      if (err) throw err;
      return 'started';
    },
    calls: () => calls,
  };
}

const deadline = () => new Error('Temporal server did not start within 5000ms');

describe('retryDevServerStart', () => {
  it('tries a start the startup deadline cut short again, and answers with the start that succeeded', async () => {
    const s = startFailing([deadline(), deadline()]);
    await expect(retryDevServerStart(s.start)).resolves.toBe('started');
    expect(s.calls()).toBe(3);
  });

  it('gives up after the last attempt with the deadline error', async () => {
    const s = startFailing(Array.from({ length: DEV_SERVER_START_ATTEMPTS }, deadline));
    await expect(retryDevServerStart(s.start)).rejects.toThrow('did not start within');
    expect(s.calls()).toBe(DEV_SERVER_START_ATTEMPTS);
  });

  it('throws any other error at once, without a second attempt', async () => {
    const s = startFailing([new Error('spawn temporal ENOENT')]);
    await expect(retryDevServerStart(s.start)).rejects.toThrow('ENOENT');
    expect(s.calls()).toBe(1);
  });
});
