/**
 * The per-field floor history (bench/eval/floors.ts): floors only rise unless lowered by name, a
 * field without a floor gets one, and the file that ships has a floor for every labelled field
 * of the pages suite, each entry naming its commit.
 */
import { currentFloors, floorFor, proposeFloors, readFloorHistory, withEntries, type FloorHistory } from '../../../bench/eval/floors';
import { PAGE_FIELDS } from '../../../bench/eval/pages';

const AT = { commit: 'abc1234', date: '2026-11-29' };

const HISTORY: FloorHistory = {
  pages_lofo_f1: {
    sku: [
      { floor: 0.89, measured: 0.917, commit: 'old0001', date: '2026-11-24' },
      { floor: 0.91, measured: 0.934, commit: 'old0002', date: '2026-11-28' },
    ],
    price: [{ floor: 0.85, measured: 0.868, commit: 'old0002', date: '2026-11-28' }],
  },
};

describe('per-field floor history', () => {
  it('the floor now is the last entry of each field', () => {
    expect(currentFloors(HISTORY)).toEqual({ sku: 0.91, price: 0.85 });
  });

  it('sets a floor under the measure by the field margin, rounded down to 0.01', () => {
    expect(floorFor('sku', 0.9412)).toBe(0.92);
    expect(floorFor('gtin', 0.9)).toBe(0.8);
    expect(floorFor('mpn', 0.8333)).toBe(0.77);
  });

  it('raises a floor, adds a missing one, and keeps a floor the measure would lower', () => {
    const proposed = proposeFloors(HISTORY, { sku: 0.96, price: 0.86, mpn: 0.8333 }, AT);
    expect(proposed).toEqual({
      sku: { floor: 0.94, measured: 0.96, commit: 'abc1234', date: '2026-11-29' },
      mpn: { floor: 0.77, measured: 0.8333, commit: 'abc1234', date: '2026-11-29' },
    });
    const next = withEntries(HISTORY, proposed);
    expect(currentFloors(next)).toEqual({ sku: 0.94, price: 0.85, mpn: 0.77 });
    // The history keeps the older floors.
    expect(next.pages_lofo_f1.sku.map((e) => e.commit)).toEqual(['old0001', 'old0002', 'abc1234']);
  });

  it('lowers a floor only when that field is named', () => {
    expect(proposeFloors(HISTORY, { price: 0.8 }, AT)).toEqual({});
    expect(proposeFloors(HISTORY, { price: 0.8 }, AT, new Set(['price'])).price.floor).toBe(0.78);
  });

  it('the shipped history has a floor for every labelled page field, each with its commit', () => {
    const history = readFloorHistory();
    const floors = currentFloors(history);
    expect(PAGE_FIELDS.filter((f) => floors[f] === undefined)).toEqual([]);
    for (const entries of Object.values(history.pages_lofo_f1))
      for (const e of entries) {
        expect(e.commit).toMatch(/^[0-9a-f]{7,40}(\+dirty)?$/);
        expect(e.floor).toBeLessThan(e.measured);
      }
  });
});
