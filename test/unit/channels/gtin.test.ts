import { gtinCheckDigit, normaliseGtin, parseGtin, restrictedKind, toGtin14 } from '../../../src/channels';

/**
 * GTIN checks after the GS1 General Specifications: lengths 8/12/13/14, the mod-10 check digit,
 * restricted and coupon prefixes. The expected check digits were worked out by hand (weights
 * 3,1,3,… from the right) or are published examples (Wikipedia's EAN-8 96385074, GS1's GTIN-14
 * 00012345600012, ISBN 978-0-306-40615-7).
 */
describe('GTIN', () => {
  test.each([
    ['96385074', 8],
    ['036000291452', 12],
    ['4006381333931', 13],
    ['9780306406157', 13],
    ['00012345600012', 14],
  ])('%s is a valid GTIN-%i and not restricted', (gtin, length) => {
    const r = parseGtin(gtin);
    expect(r).toEqual({ ok: true, gtin, gtin14: gtin.padStart(14, '0'), restricted: null });
    expect(r.gtin).toHaveLength(length);
  });

  test.each([
    ['96385075', 'check_digit'],
    ['036000291453', 'check_digit'],
    ['4006381333932', 'check_digit'],
    ['00012345600013', 'check_digit'],
    ['12345', 'length'],
    ['12345678901', 'length'],
    ['123456789012345', 'length'],
    ['40063813339A1', 'not_digits'],
    ['00000000', 'zero'],
  ])('%s is refused (%s)', (gtin, reason) => {
    expect(parseGtin(gtin)).toMatchObject({ ok: false, reason });
  });

  test('spaces, dashes and dots are removed before checking', () => {
    expect(normaliseGtin(' 4006-381 333.931 ')).toBe('4006381333931');
    expect(parseGtin('4 006381 333931')).toMatchObject({ ok: true, gtin: '4006381333931' });
  });

  test('the check digit is the GS1 mod-10 digit', () => {
    expect(gtinCheckDigit('400638133393')).toBe(1);
    expect(gtinCheckDigit('03600029145')).toBe(2);
    expect(gtinCheckDigit('9638507')).toBe(4);
    expect(gtinCheckDigit('0001234560001')).toBe(2);
    expect(() => gtinCheckDigit('12a')).toThrow();
  });

  test('GTINs are compared as GTIN-14', () => {
    expect(toGtin14('036000291452')).toBe('00036000291452');
    expect(parseGtin('036000291452')).toMatchObject({ gtin14: '00036000291452' });
    expect(parseGtin('0036000291452')).toMatchObject({ gtin14: '00036000291452' });
  });

  test.each([
    ['2001234567893', 'restricted_circulation'], // GTIN-13 prefix 200-299
    ['20123451', 'restricted_circulation'], // GTIN-8 prefix 2
    ['412345678903', 'company_internal'], // UPC number system 4 = GS1 prefix 040-049
    ['512345678900', 'coupon'], // UPC number system 5 = GS1 prefix 050-059
    ['9912345678909', 'coupon'], // GS1 prefix 99x
    ['9801234567892', 'refund_receipt'], // GS1 prefix 980
  ])('%s is valid but %s', (gtin, kind) => {
    expect(parseGtin(gtin)).toMatchObject({ ok: true, restricted: kind });
  });

  test('restricted ranges are read from the GTIN-13 form of a GTIN-14 and from a GTIN-8 behind zeros', () => {
    expect(restrictedKind('12001234567890')).toBe('restricted_circulation');
    expect(restrictedKind('000020123451')).toBe('restricted_circulation');
    expect(restrictedKind('4006381333931')).toBeNull();
    expect(restrictedKind('96385074')).toBeNull();
  });
});
