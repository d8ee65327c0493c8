import { parseServerTiming, StageTimings } from '../../../src/lib/stage-timings';

/** The Server-Timing header of the bulk write path (src/lib/stage-timings.ts; W3C Server Timing). */
describe('StageTimings', () => {
  it('sums repeated stages, keeps their first order, and round-trips through the header', async () => {
    const t = new StageTimings();
    t.add('lock', 1.234);
    t.add('words', 2);
    t.add('lock', 0.5);
    await t.time('write', async () => undefined);
    expect(t.timeSync('parse', () => 7)).toBe(7);
    const entries = t.entries();
    expect(Object.keys(entries)).toEqual(['lock', 'words', 'write', 'parse']);
    expect(entries.lock).toBeCloseTo(1.73, 2);
    expect(parseServerTiming(t.header())).toEqual(entries);
  });

  it('times a stage that throws and rethrows its error', () => {
    const t = new StageTimings();
    expect(() =>
      t.timeSync('validation', () => {
        throw new Error('bad');
      }),
    ).toThrow('bad');
    expect(Object.keys(t.entries())).toEqual(['validation']);
  });

  it('reads other servers’ headers: metrics without dur count 0, descriptions are ignored', () => {
    expect(parseServerTiming('cache;desc="Cache Read";dur=23.2, db;dur=53, app;dur=47.2, miss')).toEqual({ cache: 23.2, db: 53, app: 47.2, miss: 0 });
    expect(parseServerTiming(null)).toEqual({});
  });
});
