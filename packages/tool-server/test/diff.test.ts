/**
 * The tool server's local diff (docs/tool-server-design.md "Diff"): the upstream tool's worked examples,
 * value normalisation by type (`"1.0"` vs 1, arrays vs their JSON string, CSV cells), key
 * diagnostics (missing and duplicated keys, ignored deterministic fields) and its errors.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { computeDiff, DiffError, DiffInput } from '../src/diff';
import { differs, normKey } from '../src/values';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-diff-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Writes rows as JSON Lines into the test directory. */
function jsonl(name: string, rows: Array<Record<string, unknown>>): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

/** Writes CSV text into the test directory. */
function csv(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

const defaults = (before: string, after: string, more: Partial<DiffInput> = {}): DiffInput => ({
  before_path: before,
  after_path: after,
  key_field: '__catalog_item_id',
  deterministic_key_fields: [],
  allow_row_index_fallback: true,
  ...more,
});

/** The staged changes the diff wrote. */
function stagedOf(file: string): Array<Record<string, unknown>> {
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

const sys = (id: string, entity = 'variant', version = 1) => ({ __catalog_item_id: id, __entity_type: entity, __parent_id: '', __current_version: version });

test('example 1: modify, no-op rewrite, delete and a new row; staged order and full rows', async () => {
  const rows = Array.from({ length: 6 }, (_, i) => ({ ...sys(`id-${i}`, i === 2 ? 'product' : 'variant'), sku: `S${i}`, price: i }));
  const before = jsonl('before.jsonl', rows);
  const after = jsonl('after.jsonl', [
    ...rows
      .filter((r) => r.__catalog_item_id !== 'id-2')
      .map((r) => (r.__catalog_item_id === 'id-1' ? { ...r, price: 99.5 } : r.__catalog_item_id === 'id-3' ? { ...r, price: 3.0 } : r)),
    { __catalog_item_id: '', __entity_type: 'variant', sku: 'NEW1', price: 7 },
  ]);
  const out = await computeDiff(defaults(before, after));
  expect(out.diff_summary).toEqual({ rows_before: 6, rows_after: 6, rows_added: 1, rows_removed: 1, rows_modified: 1, columns_added: [], columns_removed: [] });
  expect(out.field_change_counts).toEqual({ price: 1 });
  expect(out.entity_type_change_counts).toEqual({ variant: { added: 1, removed: 0, modified: 1 }, product: { added: 0, removed: 1, modified: 0 } });
  expect(out.key_diagnostics.after_match_strategy_counts).toEqual({ key_field: 5, row_index: 1 });
  expect(out.sample_changes).toEqual([{ key: 'k:id-1', field: 'price', before: 1, after: 99.5 }]);
  const staged = stagedOf(out.staged_changes_path);
  expect(staged).toEqual([
    {
      catalog_item_id: 'id-1',
      catalog_item_entity_type: 'variant',
      before_data: { sku: 'S1', price: 1 },
      after_data: { sku: 'S1', price: 99.5 },
      source_data: null,
      is_new_item: false,
      row_index: 0,
      base_version: 1,
    },
    {
      catalog_item_id: 'id-2',
      catalog_item_entity_type: 'product',
      before_data: { sku: 'S2', price: 2 },
      after_data: {},
      source_data: null,
      is_new_item: false,
      is_delete: true,
      row_index: 1,
      base_version: 1,
    },
    {
      catalog_item_id: null,
      catalog_item_entity_type: 'variant',
      before_data: null,
      after_data: { sku: 'NEW1', price: 7 },
      source_data: { sku: 'NEW1', price: 7 },
      is_new_item: true,
      row_index: 2,
    },
  ]);
  const details = JSON.parse(fs.readFileSync(out.diff_details_path, 'utf8'));
  expect(details.row_diffs.map((d: { change_type: string; match_key: string }) => `${d.match_key}=${d.change_type}`)).toEqual([
    'k:id-1=modified',
    'k:id-2=removed',
    'r:5=added',
  ]);
});

test('example 2: deterministic fields with a duplicate; unknown fields ignored; untracked removals not staged', async () => {
  const before = jsonl('before.jsonl', [
    { sku: 'A', price: 1 },
    { sku: 'B', price: 2 },
    { sku: 'B', price: 2 },
  ]);
  const after = jsonl('after.jsonl', [
    { sku: 'A', price: 1 },
    { sku: 'B', price: 3 },
    { sku: 'C', price: 4 },
  ]);
  const out = await computeDiff(defaults(before, after, { deterministic_key_fields: ['sku', 'nope'] }));
  expect(out.diff_summary).toMatchObject({ rows_added: 2, rows_removed: 0, rows_modified: 0 });
  expect(out.field_change_counts).toEqual({ price: 1 });
  expect(out.key_diagnostics).toMatchObject({
    key_field_present_before: false,
    before_missing_key_values: 3,
    deterministic_key_fields_used: ['sku'],
    ignored_deterministic_key_fields: ['nope'],
  });
  const types = JSON.parse(fs.readFileSync(out.diff_details_path, 'utf8')).row_diffs.map((d: { change_type: string }) => d.change_type);
  expect(types.sort()).toEqual(['added', 'added_from_match', 'removed_untracked']);
  expect(stagedOf(out.staged_changes_path)).toHaveLength(2);
});

test('example 3: no key column and the fallback off is an error; unmatched rows are reported with both counts', async () => {
  const before = jsonl('before.jsonl', [{ sku: 'A' }]);
  const after = jsonl('after.jsonl', [{ sku: 'A' }]);
  await expect(computeDiff(defaults(before, after, { allow_row_index_fallback: false }))).rejects.toThrow(DiffError);
  const b2 = jsonl('b2.jsonl', [
    { ...sys('1'), sku: 'A' },
    { __catalog_item_id: '', sku: 'B' },
  ]);
  const a2 = jsonl('a2.jsonl', [{ ...sys('1'), sku: 'A' }]);
  await expect(computeDiff(defaults(b2, a2, { allow_row_index_fallback: false }))).rejects.toThrow('1 before rows and 0 after rows have no match key');
});

test('values compare by type: "1.0" = 1, arrays = their JSON string, "true" = true; CSV cells against typed JSON are no change', async () => {
  expect(differs('1.0', 1)).toBe(false);
  expect(differs(1, 1.0)).toBe(false);
  expect(differs(['a', 'b'], '["a", "b"]')).toBe(false);
  expect(differs({ b: 1, a: [2] }, '{"a":[2],"b":1}')).toBe(false);
  expect(differs('true', true)).toBe(false);
  expect(differs(null, Number.NaN)).toBe(false);
  expect(differs(null, 0)).toBe(true);
  expect(differs('1.5', 1)).toBe(true);
  expect(differs('abc', 0)).toBe(true);
  expect(normKey('  nan ')).toBeNull();
  expect(normKey(' 42 ')).toBe('42');

  const before = jsonl('catalog_x.jsonl', [
    { ...sys('1'), sku: 'A', price: 3, tags: ['x', 'y'], active: true, meta: { a: 1 } },
    { ...sys('2'), sku: 'B', price: 1.5, tags: [], active: false },
  ]);
  const after = csv(
    'after.csv',
    '__catalog_item_id,__entity_type,__parent_id,__current_version,sku,price,tags,active,meta\n' +
      '1,variant,,1,A,3.0,"[""x"", ""y""]",True,"{""a"": 1}"\n' +
      '2,variant,,1,B,2.25,[],false,\n',
  );
  const out = await computeDiff(defaults(before, after));
  expect(out.diff_summary).toMatchObject({ rows_added: 0, rows_removed: 0, rows_modified: 1 });
  expect(out.field_change_counts).toEqual({ price: 1 });
  // The changed row's values are typed from the before file: a number, a list, a boolean, not strings.
  const [change] = stagedOf(out.staged_changes_path);
  expect(change.after_data).toEqual({ sku: 'B', price: 2.25, tags: [], active: false });
});

test('column kinds come from the schema file beside the snapshot when both files are CSV', async () => {
  const header = '__catalog_item_id,__entity_type,__parent_id,__current_version,sku,price,tags\n';
  const before = csv('catalog_c.csv', header + '1,variant,,1,A,3,"[""x""]"\n');
  fs.writeFileSync(
    path.join(dir, 'catalog_c_schema.json'),
    JSON.stringify({ schema_definition: { properties: { price: { type: 'number' }, tags: { type: 'array' } } } }),
  );
  const after = csv('after.csv', header + '1,variant,,1,A,4.5,"[""x"", ""z""]"\n');
  const out = await computeDiff(defaults(before, after));
  expect(stagedOf(out.staged_changes_path)[0].after_data).toEqual({ sku: 'A', price: 4.5, tags: ['x', 'z'] });
});

test('key diagnostics: duplicated and missing keys on each side, and columns added and removed', async () => {
  const before = jsonl('before.jsonl', [
    { ...sys('1'), sku: 'A', old: 1 },
    { ...sys('1'), sku: 'A2', old: 1 },
    { ...sys('2'), sku: 'B', old: 1 },
  ]);
  const after = jsonl('after.jsonl', [
    { ...sys('1'), sku: 'A', fresh: 1 },
    { ...sys('2'), sku: 'B', fresh: 1 },
    { ...sys('2'), sku: 'B', fresh: 1 },
    { __catalog_item_id: 'nan', sku: 'C', fresh: 1 },
  ]);
  const out = await computeDiff(defaults(before, after));
  expect(out.key_diagnostics).toMatchObject({
    before_duplicate_key_values: 1,
    before_duplicate_key_examples: ['1'],
    after_duplicate_key_values: 1,
    after_duplicate_key_examples: ['2'],
    before_missing_key_values: 0,
    after_missing_key_values: 1,
  });
  expect(out.diff_summary.columns_added).toEqual(['fresh']);
  expect(out.diff_summary.columns_removed).toEqual(['old']);
  // Duplicates are paired in file order, not overwritten: 1 pairs once and its second before row is removed; 2's extra after row is a modify of an unmatched id.
  const types = JSON.parse(fs.readFileSync(out.diff_details_path, 'utf8')).row_diffs.map(
    (d: { match_key: string; change_type: string }) => `${d.match_key}=${d.change_type}`,
  );
  expect(types).toEqual(['k:1=modified', 'k:1=removed', 'k:2=modified', 'k:2=modified_unmatched', 'r:3=added']);
});

test('an unsupported file extension is refused', async () => {
  const before = jsonl('before.jsonl', [{ sku: 'A' }]);
  const after = path.join(dir, 'after.xlsx');
  fs.writeFileSync(after, 'x');
  await expect(computeDiff(defaults(before, after))).rejects.toThrow(/unsupported table format \.xlsx/);
});
