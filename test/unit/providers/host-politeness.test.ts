/**
 * The hosts' politeness over the real PostgreSQL (src/services/fetching/host-limiter.ts,
 * docs/research.md "Politeness, shared by all workers"): two instances, as two workers, share
 * one host's spacing and slots. Spacing is asserted on the granted starts, which are
 * database-clock instants, so it holds however busy this machine is.
 */
import { randomUUID } from 'node:crypto';
import { createHostPoliteness } from '../../../src/services/fetching/host-limiter';
import { closeTestKnex, testKnex } from '../../helpers/db';

afterAll(closeTestKnex);

const settings = { perHost: 3, intervalMs: 200, leaseMs: 60_000, maxWaitMs: 60_000 };

/** Spins the event loop for `ms` (a stand-in for a worker busy with other requests). */
const busy = (ms: number): void => {
  const until = Date.now() + ms;
  while (Date.now() < until);
};

test('two workers never get starts to one host closer than the interval, even when their event loop wakes late', async () => {
  const host = `${randomUUID()}.example`;
  const a = createHostPoliteness(testKnex(), settings);
  const b = createHostPoliteness(testKnex(), settings);
  const take = async (p: typeof a): Promise<string> => {
    const grant = await p.acquire(host);
    await grant.release();
    return grant.started_at;
  };
  const grants = Promise.all([take(a), take(b), take(a), take(b), take(a), take(b)]);
  // While the later ones sleep towards their turn, block the loop past the next turn: a waiter
  // that wakes late claims then, it does not send on a start it was promised earlier.
  await new Promise((resolve) => setTimeout(resolve, 150));
  busy(300);
  const starts = (await grants).map((t) => Date.parse(t)).sort((x, y) => x - y);
  for (let i = 1; i < starts.length; i++) expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(settings.intervalMs);
});

test('a start waits the interval after the host last answered, and Crawl-delay widens the spacing', async () => {
  const host = `${randomUUID()}.example`;
  const politeness = createHostPoliteness(testKnex(), settings);
  const first = await politeness.acquire(host);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await first.release();
  const answered = new Date((await testKnex()('fetch_hosts').where({ host }).first('last_answer_at')).last_answer_at).getTime();
  const second = await politeness.acquire(host);
  expect(Date.parse(second.started_at) - answered).toBeGreaterThanOrEqual(settings.intervalMs);
  await second.release();
  await politeness.setCrawlDelay(host, 450);
  const third = await politeness.acquire(host);
  expect(Date.parse(third.started_at) - Date.parse(second.started_at)).toBeGreaterThanOrEqual(450);
  await third.release();
});

test('slots: a third request waits for one of two slots to free, and a held slot blocks another worker until released', async () => {
  const host = `${randomUUID()}.example`;
  const two = { ...settings, perHost: 2, intervalMs: 0 };
  const a = createHostPoliteness(testKnex(), two);
  const b = createHostPoliteness(testKnex(), two);
  const held = [await a.acquire(host), await b.acquire(host)];
  let third = false;
  const waiting = b.acquire(host).then((grant) => {
    third = true;
    return grant;
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(third).toBe(false);
  await held[0].release();
  const grant = await waiting;
  expect(third).toBe(true);
  await Promise.all([grant.release(), held[1].release()]);
  expect(await testKnex()('fetch_host_slots').where({ host }).count({ n: '*' })).toEqual([{ n: '0' }]);
});
