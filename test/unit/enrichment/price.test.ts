import { parsePrice } from '../../../src/enrichment/normalize/price';

describe('parsePrice', () => {
  it.each([
    ['1.234,56 €', '1234.56', 'EUR', '€'],
    ['$1,234.56', '1234.56', 'USD', '$'],
    ['1 234,56 zł', '1234.56', 'PLN', 'zł'],
    ['EUR 12', '12', 'EUR', 'EUR'],
    ['8 390 руб.', '8390', 'RUB', 'руб.'],
    ['R$ 139,99 R$ 135,99', '139.99', 'BRL', 'R$'],
    ['3 Ausgaben für nur 14,85 EUR', '14.85', 'EUR', 'EUR'],
    ['$1,190.00 AUD', '1190', 'AUD', 'AUD'],
    ['119. 95 CHF', '119.95', 'CHF', 'CHF'],
    ['34.992001', '34.992001', null, null],
  ])('%s → %s %s', (text, amount, code, shown) => {
    expect(parsePrice(text)).toEqual({ amount, currency: code, currency_text: shown });
  });

  it('uses the currency hint when the text has none, and the decimal separator hint', () => {
    expect(parsePrice('29.1583', { currency_hint: 'GBP' })).toEqual({ amount: '29.1583', currency: 'GBP', currency_text: 'GBP' });
    expect(parsePrice('1.500', { decimal_separator: '.' })?.amount).toBe('1.5');
    expect(parsePrice('1.500')?.amount).toBe('1500');
  });

  it('returns null without amount and currency; free means 0', () => {
    expect(parsePrice('call us')).toBeNull();
    expect(parsePrice('Free!')?.amount).toBe('0');
  });
});
