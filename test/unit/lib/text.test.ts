import { jsonTextProblem, MAX_JSON_DEPTH, unstorableTextPaths } from '../../../src/lib/text';

/** `levels` arrays nested in one another around `inner`. */
const nested = (levels: number, inner: unknown = 'x'): unknown => {
  let v = inner;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
};

describe('jsonTextProblem (the one walk every request body gets)', () => {
  it('accepts a body nesting exactly MAX_JSON_DEPTH levels and refuses one more', () => {
    expect(jsonTextProblem(nested(MAX_JSON_DEPTH))).toBeNull();
    expect(jsonTextProblem({ items: nested(MAX_JSON_DEPTH - 1) })).toBeNull();
    expect(jsonTextProblem(nested(MAX_JSON_DEPTH + 1))).toBe('too_deep');
    expect(jsonTextProblem({ items: nested(MAX_JSON_DEPTH) })).toBe('too_deep');
  });

  it('finds NUL and unpaired surrogates in strings and in keys, at any position', () => {
    expect(jsonTextProblem({ items: [{ sku: 'a' }, { sku: 'b', tags: ['ok', 'x\u0000'] }] })).toBe('unstorable');
    expect(jsonTextProblem({ items: [{ ['ti\u0000tle']: 'x' }] })).toBe('unstorable');
    expect(jsonTextProblem(['\ud800'])).toBe('unstorable');
    expect(jsonTextProblem(['a\udc00'])).toBe('unstorable');
    expect(jsonTextProblem({ title: 'emoji \ud83d\ude00', n: 1, ok: true, none: null })).toBeNull();
  });

  it('says too_deep when a body is both too deep and unstorable, as the detail it answers', () => {
    expect(jsonTextProblem({ a: 'x\u0000', b: nested(MAX_JSON_DEPTH + 5) })).toBe('too_deep');
  });

  it('agrees with the path-collecting walk on every value of a mixed body', () => {
    const bodies: unknown[] = [{ a: [{ b: 'x' }, { c: 'y\ud800' }] }, { k: { ['\udfff']: 1 } }, { fine: [1, 'two', { three: 3 }] }];
    for (const body of bodies) expect(jsonTextProblem(body) === 'unstorable').toBe(unstorableTextPaths(body).length > 0);
  });
});
