/**
 * Checks the cron `schedule` of a feed before it becomes a Temporal Schedule. The accepted
 * grammar is the classic five-field crontab (minute, hour, day of month, month, day of week; see
 * crontab(5)) with `*`, lists, ranges and `/step`, month and weekday names, and the shorthands
 * `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`: the subset Temporal's cron parser takes too.
 *
 * Temporal's client passes a Schedule's cron strings to the server unchecked, and the server's
 * parser reads a sixth field as the year and a seventh as leading seconds. Cron libraries
 * (cron-parser, croner) read a sixth field as leading seconds instead, and take `L`, `?`, `H` and
 * `#` (a comment in Temporal), so checking with one would still need the field count, the
 * shorthands and a character rule of this file: own code, on purpose.
 */

/** Field ranges in crontab(5) order: minute, hour, day of month, month, day of week (0 and 7 = Sunday). */
const FIELDS: Array<{ name: string; min: number; max: number; names?: string[] }> = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { name: 'day of week', min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

const SHORTHANDS = new Set(['@hourly', '@daily', '@midnight', '@weekly', '@monthly', '@yearly', '@annually']);

/** One value of a field: a number in range or a name (months from 1, weekdays from 0); null when neither. */
function valueOf(text: string, field: (typeof FIELDS)[number]): number | null {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n >= field.min && n <= field.max ? n : null;
  }
  const i = field.names?.indexOf(text.toLowerCase()) ?? -1;
  if (i < 0) return null;
  return field.name === 'month' ? i + 1 : i;
}

/** Why one list element of a field is invalid, or null when it is valid. */
function elementError(part: string, field: (typeof FIELDS)[number]): string | null {
  const [range, step, ...rest] = part.split('/');
  if (rest.length > 0 || range === '') return `"${part}" is not a ${field.name} expression`;
  if (step !== undefined && !/^[1-9]\d*$/.test(step)) return `step "${step}" of the ${field.name} must be a positive whole number`;
  if (range === '*') return null;
  const ends = range.split('-');
  if (ends.length > 2) return `"${range}" is not a ${field.name} range`;
  const values = ends.map((e) => valueOf(e, field));
  if (values.some((v) => v === null)) return `"${range}" is outside the ${field.name} range ${field.min}-${field.max}`;
  if (values.length === 2 && (values[0] as number) > (values[1] as number)) return `the ${field.name} range "${range}" runs backwards`;
  return null;
}

/**
 * Why `expr` is not a cron expression the service can schedule, or null when it is one.
 * @param expr e.g. `"0 3 * * *"` (every day at 03:00 UTC) or `"@daily"`
 */
export function cronError(expr: string): string | null {
  const text = expr.trim();
  if (SHORTHANDS.has(text.toLowerCase())) return null;
  const parts = text.split(/\s+/);
  if (parts.length !== 5) return `a cron expression has 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`;
  for (let i = 0; i < 5; i += 1) {
    for (const element of parts[i].split(',')) {
      const err = elementError(element, FIELDS[i]);
      if (err) return err;
    }
  }
  return null;
}
