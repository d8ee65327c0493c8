/**
 * Sets each key of `defaults` whose value in `target` is `undefined` (absent or undefined), in
 * the key order of `defaults`; keys `target` already has keep their value. Mutates `target`.
 * Used for the enrich request's template defaults and ENRICH_DEFAULTS (src/services/enrichment/).
 */
export function fillUndefined<T extends object>(target: T, defaults: Partial<T>): void {
  for (const key in defaults) {
    if (!Object.prototype.hasOwnProperty.call(defaults, key)) continue;
    const value = defaults[key];
    if (target[key] === undefined && value !== undefined) target[key] = value;
  }
}

/**
 * Copies each key of `source` whose value is not `undefined` onto `target` (overwriting), in the
 * key order of `source`. Mutates `target`. Used for re-extraction overrides of a stored job config.
 */
export function assignDefined<T extends object>(target: T, source: Partial<T>): void {
  for (const key in source) {
    if (!Object.prototype.hasOwnProperty.call(source, key)) continue;
    const value = source[key];
    if (value !== undefined) target[key] = value;
  }
}

/**
 * `table[key]` when `key` is the table's OWN property, else undefined: a lookup by a key from
 * outside (a query parameter, a content type, a tag name of a fetched page) must not find
 * `Object.prototype` members such as `constructor` or `__proto__`.
 */
export function own<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
