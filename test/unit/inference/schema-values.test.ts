/**
 * Values from any client typed by the catalog schema with the spreadsheet import's rules
 * (src/services/sheets/items-from-rows.ts `schemaValue`, `typedBySchema`).
 */
import { schemaValue, typedBySchema } from '../../../src/services/sheets/items-from-rows';

describe('schemaValue', () => {
  it('reads text as the property type says, as the import does', () => {
    expect(schemaValue('7', { type: 'integer' })).toEqual({ value: 7 });
    expect(schemaValue('1,5', { type: ['number', 'null'] })).toEqual({ value: 1.5 });
    expect(schemaValue('yes', { type: 'boolean' })).toEqual({ value: true });
    expect(schemaValue('red\nblue', { type: 'array' })).toEqual({ value: ['red', 'blue'] });
    expect(schemaValue('a; b', { type: 'array', 'x-separator': ';' })).toEqual({ value: ['a', 'b'] });
    expect(schemaValue('["x"]', { type: 'array' })).toEqual({ value: ['x'] });
    expect(schemaValue('{"w":1}', { type: 'object' })).toEqual({ value: { w: 1 } });
    expect(schemaValue('0012', { type: 'string' })).toEqual({ value: '0012' });
  });

  it('turns numbers and booleans into text for text fields, reads number elements, passes typed and empty values', () => {
    expect(schemaValue(12, { type: 'string' })).toEqual({ value: '12' });
    expect(schemaValue(['1', 2], { type: 'array', items: { type: 'number' } })).toEqual({ value: [1, 2] });
    expect(schemaValue(3.5, { type: 'number' })).toEqual({ value: 3.5 });
    expect(schemaValue(null, { type: 'number' })).toEqual({ value: null });
    expect(schemaValue('', { type: 'number' })).toEqual({ value: '' });
    expect(schemaValue('anything', undefined)).toEqual({ value: 'anything' });
  });

  it('names what cannot be typed', () => {
    expect(schemaValue('abc', { type: 'number' })).toEqual({ problem: '"abc" is not a number' });
    expect(schemaValue('7.5', { type: 'integer' })).toEqual({ problem: '"7.5" is not an integer' });
    expect(schemaValue('maybe', { type: 'boolean' })).toEqual({ problem: '"maybe" is not a boolean' });
    expect(schemaValue(['x'], { type: 'array', items: { type: 'number' } })).toEqual({ problem: '["x"] holds an element that is not a number' });
  });
});

describe('typedBySchema', () => {
  it('types the keys the schema knows and reports each value it cannot type', () => {
    const props = { price: { type: 'number' }, tags: { type: 'array' }, stock: { type: 'integer' } };
    expect(typedBySchema({ sku: 'A', price: '7', tags: 'a|b', stock: 'many' }, props)).toEqual({
      data: { sku: 'A', price: 7, tags: ['a', 'b'], stock: 'many' },
      problems: ['stock: "many" is not an integer'],
    });
  });
});
