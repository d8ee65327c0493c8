/**
 * Agreement voting over a field's candidate readings (docs/enrich-options.md, "The enrichment
 * engine"): candidates grouped by value, summed weight decides, the strongest reading explains,
 * and the number of independent readings that agree sets the confidence. Pure; the engine
 * (./engine.ts) votes per field over page, text and knowledge-base candidates.
 */
import type { Candidate } from './extract/candidate';
import { readInUnit } from './normalize/units';
import { sampleShapes, shapeOf } from './semantics/samples';
import type { OutputField } from './types';

/** The confidence levels of a value (`review_info.field_confidence`). */
export type Confidence = 'high' | 'medium' | 'low';

/** high: a strong reading confirmed by a second, independent one; medium: one sound reading; low: only weak readings. */
export function confidenceOf(weight: number, agreeing: number): Confidence {
  if ((weight >= 0.85 && agreeing >= 2) || (weight >= 0.5 && agreeing >= 3)) return 'high';
  if (weight >= 0.5) return 'medium';
  return 'low';
}

/** The winning group of a vote, with the groups it beat. */
export interface Voted {
  value: string | string[];
  candidates: Candidate[];
  rivals: Candidate[];
  confidence: Confidence;
  /** Distinct method@page readings that agree on the value (a reading that echoes another method's writing, `Candidate.echoes`, counts as that method). */
  agreeing: number;
}

/** What a reading shaped like one of the field's `sample_values` adds to its group's rank (never to its weight or confidence). */
export const SAMPLE_SHAPE_BONUS = 0.5;

/**
 * Agreement voting: candidates grouped by value, summed weight decides; the strongest reading
 * explains. A group whose reading is shaped like one of the field's `sample_values`
 * (./semantics/samples) ranks higher; the confidence still comes from the readings' weights. For a number field with a `unit`, readings group by their quantity in that unit
 * (a JSON-LD `1.2` + `KGM` agrees with a spec row "1200 g"); a bare number with a stated
 * unit never groups with the same number in another unit.
 */
export function vote(candidates: Candidate[], field?: OutputField): Voted | null {
  if (candidates.length === 0) return null;
  const shapes = sampleShapes(field?.sample_values);
  const shaped = (c: Candidate) =>
    shapes.size > 0 && (Array.isArray(c.value) ? c.value : [c.value]).some((v) => shapes.has(shapeOf(v))) ? SAMPLE_SHAPE_BONUS : 0;
  const measured = field?.unit && (field.type === 'number' || field.type === 'integer') ? field.unit : null;
  const groups = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const quantity = measured && !Array.isArray(c.value) ? readInUnit(c.value, measured, c.unit) : undefined;
    const key =
      quantity !== undefined
        ? `= ${quantity}`
        : `${Array.isArray(c.value) ? c.value.join('\n') : c.value.toLowerCase().replace(/\s+/g, ' ')}${c.unit ? ` [${c.unit}]` : ''}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const ranked = [...groups.values()]
    .map((g) => ({ g: [...g].sort((a, b) => b.weight - a.weight), total: g.reduce((s, c) => s + c.weight, 0) }))
    .map((r) => ({ ...r, score: r.g[0].weight + 0.25 * r.total + shaped(r.g[0]) }))
    .sort((a, b) => b.score - a.score);
  const best = ranked[0];
  // Independent readings: a reading that echoes another method's writing on its page counts as that one.
  const methods = new Set(best.g.map((c) => `${c.echoes ?? c.method}@${c.url}`));
  return {
    value: best.g[0].value,
    candidates: best.g,
    rivals: ranked.slice(1).map((r) => r.g[0]),
    confidence: confidenceOf(best.g[0].weight, methods.size),
    agreeing: methods.size,
  };
}
