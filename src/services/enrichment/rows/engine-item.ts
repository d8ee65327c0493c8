/** Item keys that steer the service, not the research: removed from the item the engine sees. */
const CONTROL_KEYS = ['attribute_set_id', 'source_hint_set_id'];

/**
 * The item as the engine sees it: without control keys (`attribute_set_id`,
 * `source_hint_set_id`) and keys starting with `__` (`__catalog_item_id`, …).
 */
export function engineItem(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).filter(([k]) => !k.startsWith('__') && !CONTROL_KEYS.includes(k)));
}
