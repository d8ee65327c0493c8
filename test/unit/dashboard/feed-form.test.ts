/**
 * The console's feed form bodies (src/dashboard/feed-form.ts, docs/console.md "Feeds"): the
 * create body leaves empty options out; the edit form's PATCH holds only what changed (an
 * unchanged proposal stays one), clears an emptied currency or schedule, drops the form's spare
 * mapping rows and removes an attribute whose source was cleared; nothing changed is a 422.
 */
import { ValidationError } from '../../../src/lib/errors';
import type { Feed } from '../../../src/models/feed';
import { createBodyOf, formValuesFrom, formValuesOf, orderedMapping, patchOf } from '../../../src/dashboard/feed-form';

const feed = {
  channel: 'google_merchant_center',
  format: 'tsv',
  target_country: 'DE',
  language: 'de',
  currency: 'EUR',
  schedule: '@daily',
  filter: {},
  mapping: { title: 'name', id: 'sku', condition: { value: 'new' }, description: { template: '{name} by {brand}' } },
} as unknown as Feed;
const ORDER = ['id', 'title', 'description', 'condition'];

/** The posted form of `values` as the edit page sends it, with `spare` empty mapping rows. */
function posted(patch: Record<string, string> = {}, spare = 3): URLSearchParams {
  const v = formValuesOf(feed, ORDER);
  const form = new URLSearchParams({ channel: v.channel, format: v.format, target_country: v.target_country, language: v.language, currency: v.currency });
  form.set('schedule', v.schedule);
  form.set('search', '');
  form.set('entity_type', '');
  const rows = [...v.mapping, ...Array.from({ length: spare }, () => ({ attribute: '', kind: 'field', source: '' }))];
  rows.forEach((r, i) => {
    form.set(`m.${i}.attribute`, r.attribute);
    form.set(`m.${i}.kind`, r.kind);
    form.set(`m.${i}.source`, r.source);
  });
  for (const [k, val] of Object.entries(patch)) form.set(k, val);
  return form;
}

test('the mapping rows follow the channel order, spare rows are dropped', () => {
  expect(orderedMapping(feed.mapping, ORDER).map(([a]) => a)).toEqual(['id', 'title', 'description', 'condition']);
  expect(formValuesFrom(posted(), true).mapping).toEqual(formValuesOf(feed, ORDER).mapping);
});

test('an unchanged form is a 422, not an empty PATCH', () => {
  expect(() => patchOf(feed, formValuesFrom(posted(), true))).toThrow(ValidationError);
});

test('the PATCH holds only what changed; emptied options are cleared; a cleared source removes its attribute', () => {
  expect(patchOf(feed, formValuesFrom(posted({ schedule: '', currency: '' }), true))).toEqual({ schedule: null, currency: null });
  // The service stores the country in capitals: typing it in small letters changes nothing.
  expect(() => patchOf(feed, formValuesFrom(posted({ target_country: 'de' }), true))).toThrow('Nothing changed');
  const changed = patchOf(feed, formValuesFrom(posted({ 'm.3.source': '', 'm.4.attribute': 'brand', 'm.4.source': 'maker' }), true));
  expect(changed).toEqual({ mapping: { id: 'sku', title: 'name', description: { template: '{name} by {brand}' }, brand: 'maker' } });
});

test('the create body leaves empty options out and sends a filter only when one is set', () => {
  const v = formValuesFrom(
    new URLSearchParams({ channel: 'meta_catalog', format: 'csv', target_country: 'FR', language: 'fr', currency: '', search: 'mug' }),
    false,
  );
  expect(createBodyOf(v)).toEqual({ channel: 'meta_catalog', format: 'csv', target_country: 'FR', language: 'fr', filter: { search: 'mug' } });
});
