/**
 * The jobs page's ETA (src/services/operations/operations.ts `etaSeconds`): the rate
 * so far extrapolated to the units left; none for an operation that is not running, has no
 * units, or has done none yet.
 */
import { etaSeconds } from '../../../src/services/operations/operations';

const started = new Date('2026-01-01T00:00:00Z');
const at = (seconds: number) => started.getTime() + seconds * 1000;

describe('etaSeconds', () => {
  it('extrapolates the rate so far: 25 of 100 in 50 s → 150 s left', () => {
    expect(etaSeconds({ status: 'running', total: 100, done: 25, created_at: started }, at(50))).toBe(150);
  });

  it('rounds up, so a running operation never shows 0 s', () => {
    expect(etaSeconds({ status: 'running', total: 4, done: 3, created_at: started }, at(0.2))).toBe(1);
  });

  it('is null without a rate or when not running', () => {
    expect(etaSeconds({ status: 'running', total: 100, done: 0, created_at: started }, at(50))).toBeNull();
    expect(etaSeconds({ status: 'running', total: null, done: null, created_at: started }, at(50))).toBeNull();
    expect(etaSeconds({ status: 'completed', total: 100, done: 100, created_at: started }, at(50))).toBeNull();
    expect(etaSeconds({ status: 'cancelled', total: 100, done: 40, created_at: started }, at(50))).toBeNull();
  });
});
