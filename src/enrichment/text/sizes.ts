/**
 * Size tuples "A x B [x C]" ("4 3/4 x 2 3/8", "8-1/2\" x 11\"", "24\"W x 30\"D x 36\"H").
 * Each side keeps its own unit when written next to it. Axes come from letters after a side
 * (W/H/D/L) or, without letters, from the usual retail order: two sides = width × height,
 * three sides = width × depth × height.
 */
import { NUMBER_SOURCE } from './quantities';
import type { Span } from './spans';

/** Axis of one side of a size tuple. */
export type Axis = 'width' | 'height' | 'depth' | 'length';

/** One side of a size tuple: the span (number plus its own unit) and its axis. */
export interface SizeSide extends Span {
  axis: Axis;
}

const UNIT = `(?:\\s?(?:"|''|'|(?:inches|inch|in\\.?|cm|mm|ft\\.?|feet)(?![\\p{L}])))?`;
const LABEL = '(?:\\s?(?:[WHDL])(?![\\p{L}]))?';
const SIDE = `${NUMBER_SOURCE}${UNIT}${LABEL}`;
const TUPLE_RE = new RegExp(`(?<![\\p{L}\\p{N}.,/])(${SIDE})\\s?[xX×]\\s?(${SIDE})(?:\\s?[xX×]\\s?(${SIDE}))?(?![\\p{L}\\p{N}])`, 'gu');

const LABEL_AXIS: Record<string, Axis> = { W: 'width', H: 'height', D: 'depth', L: 'length' };

/** Splits a written side into its span (without axis letter) and the letter, if any. */
function side(written: string, start: number): { span: Span; label: string | null } {
  const m = /^(.*?)(?:\s?([WHDL]))?$/u.exec(written)!;
  const body = m[1]!.replace(/\s+$/, '');
  return { span: { start, end: start + body.length, text: body }, label: m[2] ?? null };
}

/** Every size tuple in `text`, as sides with axes. `hasHeight`: the schema has a height field. */
export function findSizeTuples(text: string, hasHeight: boolean): SizeSide[][] {
  const out: SizeSide[][] = [];
  TUPLE_RE.lastIndex = 0;
  for (let m = TUPLE_RE.exec(text); m !== null; m = TUPLE_RE.exec(text)) {
    const written = [m[1], m[2], m[3]].filter((g): g is string => g !== undefined);
    let offset = m.index;
    const sides = written.map((w) => {
      const at = text.indexOf(w, offset);
      offset = at + w.length;
      return side(w, at);
    });
    const order: Axis[] = sides.length === 3 ? ['width', 'depth', 'height'] : hasHeight ? ['width', 'height'] : ['width', 'length'];
    const labelled = sides.every((s) => s.label !== null);
    out.push(sides.map((s, i) => ({ ...s.span, axis: labelled ? LABEL_AXIS[s.label!]! : order[i]! })));
  }
  return out;
}

const WORD_AXIS: Record<string, Axis> = {
  w: 'width',
  wide: 'width',
  width: 'width',
  h: 'height',
  high: 'height',
  tall: 'height',
  height: 'height',
  d: 'depth',
  deep: 'depth',
  depth: 'depth',
  l: 'length',
  long: 'length',
  length: 'length',
};

const LABELLED_RE = new RegExp(
  `(?<![\\p{L}\\p{N}.,/])(${NUMBER_SOURCE}${UNIT})\\s?(w|h|d|l|wide|high|tall|deep|long)(?![\\p{L}])|(?<![\\p{L}])(width|height|depth|length)\\s?:?\\s?(${NUMBER_SOURCE}${UNIT})(?![\\p{L}\\p{N}])`,
  'giu',
);

/** Single sides labelled by a letter or word ("24\"D", "18\" wide", "Height: 36\""). */
export function findLabelledSides(text: string): SizeSide[] {
  const out: SizeSide[] = [];
  LABELLED_RE.lastIndex = 0;
  for (let m = LABELLED_RE.exec(text); m !== null; m = LABELLED_RE.exec(text)) {
    const written = (m[1] ?? m[4])!.replace(/\s+$/, '');
    const label = (m[2] ?? m[3])!.toLowerCase();
    const start = m[1] !== undefined ? m.index : m.index + m[0].lastIndexOf(written);
    out.push({ start, end: start + written.length, text: written, axis: WORD_AXIS[label]! });
  }
  return out;
}
