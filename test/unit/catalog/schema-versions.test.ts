import { bumpVersion, inferType, maxBump, syncFieldInfo } from '../../../src/services/catalog/schema/schema';
import { assertValidSchemaDefinition } from '../../../src/services/catalog/schema/schema-validation';
import { ValidationError } from '../../../src/lib/errors';

/** Pure rules of schema versions (docs/api-reference.md "Schema versions"). */

describe('bumpVersion', () => {
  it.each([
    ['1.0.0', 'patch', '1.0.1'],
    ['1.0.9', 'minor', '1.1.0'],
    ['1.4.2', 'major', '2.0.0'],
    ['9.9.9', 'patch', '9.9.10'],
  ] as const)('%s + %s = %s', (from, bump, to) => {
    expect(bumpVersion(from, bump)).toBe(to);
  });

  it('refuses a malformed version', () => {
    expect(() => bumpVersion('v1', 'minor')).toThrow('Malformed');
  });

  it('takes the larger bump of a batch', () => {
    expect(maxBump('patch', 'minor')).toBe('minor');
    expect(maxBump('major', 'minor')).toBe('major');
  });
});

describe('inferType', () => {
  it.each([
    [['a', 'b'], 'string'],
    [[1, 2], 'integer'],
    [[1, 2.5], 'number'],
    [[true, null], 'boolean'],
    [[null, undefined], 'string'],
    [
      [[1], { a: 1 }],
      ['array', 'object'],
    ],
  ])('%j → %j', (values, type) => {
    expect(inferType(values)).toEqual(type);
  });
});

describe('assertValidSchemaDefinition', () => {
  it('accepts a schema with properties and required names among them', () => {
    expect(() => assertValidSchemaDefinition({ type: 'object', properties: { a: { type: 'string', unit: 'cm' } }, required: ['a'] }, ['body'])).not.toThrow();
  });

  it.each([
    [[], ['body']],
    [{ properties: [] }, ['body', 'properties']],
    [{ properties: { a: 'string' } }, ['body', 'properties', 'a']],
    [{ properties: { a: { type: 'str' } } }, ['body', 'properties', 'a', 'type']],
  ])('rejects %j', (def, loc) => {
    try {
      assertValidSchemaDefinition(def, ['body']);
      throw new Error('accepted');
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).details[0].loc).toEqual(loc);
    }
  });
});

describe('syncFieldInfo', () => {
  it('keeps known entries, derives new ones, drops removed ones, in property order', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const prev = syncFieldInfo({ properties: { a: { type: 'string' }, b: { type: 'number' } } }, [], '1.0.0', at);
    const next = syncFieldInfo(
      { properties: { c: { type: 'boolean', 'x-field-category': 'generated' }, a: { type: 'string' } }, required: ['a'] },
      prev,
      '1.1.0',
      at,
    );
    expect(next.map((f) => [f.field_name, f.added_in_version, f.required, f.field_category])).toEqual([
      ['c', '1.1.0', false, 'generated'],
      ['a', '1.0.0', true, 'input'],
    ]);
  });
});
