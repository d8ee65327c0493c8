import type { Calibration } from './calibration';

/**
 * The built-in confidence calibration: cell counts of the values returned on the 98 labelled
 * dev pages (tier A, every rule on), written by `npm run eval -- pages --cv family` (its
 * `calibration_all_pages` figure). Under LOFO the evaluation refits it without the scored family.
 */
export const BUILT_IN_CALIBRATION: Calibration = {
  cells: {
    'text|single|sound|clean': { n: 100, right: 94 },
    'table|single|sound|clean': { n: 23, right: 22 },
    'table|agree|sound|clean': { n: 34, right: 32 },
    'structured|agree|strong|clean': { n: 139, right: 136 },
    'structured|single|strong|clean': { n: 47, right: 37 },
    'text|single|weak|clean': { n: 6, right: 4 },
    'structured|single|strong|contested': { n: 3, right: 2 },
    'structured|single|sound|clean': { n: 5, right: 4 },
    'structured|agree|strong|contested': { n: 4, right: 4 },
    'opengraph|agree|strong|clean': { n: 2, right: 2 },
    'opengraph|single|strong|clean': { n: 2, right: 1 },
    'text|agree|sound|clean': { n: 5, right: 4 },
    'text|single|sound|contested': { n: 6, right: 6 },
    'structured|single|sound|contested': { n: 2, right: 2 },
    'structured|agree|sound|clean': { n: 4, right: 4 },
    'table|single|weak|clean': { n: 1, right: 0 },
    'table|single|sound|contested': { n: 2, right: 2 },
    'opengraph|agree|strong|contested': { n: 2, right: 2 },
    'opengraph|single|strong|contested': { n: 2, right: 2 },
  },
  total: { n: 389, right: 360 },
  prior_weight: 10,
  high: 0.95,
  medium: 0.8,
};
