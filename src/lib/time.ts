/** ISO-8601 UTC with `Z` (docs/api-reference.md "Identifiers and timestamps"), or null for null/undefined. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
