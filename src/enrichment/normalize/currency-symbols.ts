/**
 * Currency notations seen on shop pages and the ISO 4217 code each one denotes.
 * Site-independent knowledge: symbols and local abbreviations from the ISO 4217 list and
 * Unicode currency symbols (block U+20A0–U+20CF), plus common local spellings. Ambiguous
 * notations (`$`, `kr`, `£`) map to the most common code; callers may override it with a
 * hint (e.g. the page's JSON-LD `priceCurrency`).
 */
export const CURRENCY_NOTATIONS: ReadonlyArray<readonly [string, string | null]> = [
  // multi-character dollar forms first (longest match wins anyway)
  ['US$', 'USD'], ['US $', 'USD'], ['AU$', 'AUD'], ['AU $', 'AUD'], ['A$', 'AUD'], ['C$', 'CAD'], ['CA$', 'CAD'],
  ['CAN$', 'CAD'], ['CAD$', 'CAD'], ['NZ$', 'NZD'], ['NT$', 'TWD'], ['NT', 'TWD'], ['HK$', 'HKD'], ['S$', 'SGD'], ['MX$', 'MXN'],
  ['R$', 'BRL'], ['BZ$', 'BZD'], ['CUC$', 'CUC'], ['RD$', 'DOP'], ['J$', 'JMD'], ['MOP$', 'MOP'], ['T$', 'TOP'],
  ['TT$', 'TTD'], ['$U', 'UYU'], ['Z$', 'ZWL'], ['G$', 'GYD'], ['GY$', 'GYD'], ['$b', 'BOB'], ['$', 'USD'],
  ['€', 'EUR'], ['euro', 'EUR'], ['euros', 'EUR'], ['£', 'GBP'], ['￡', 'GBP'], ['₤', 'GBP'], ['pound', 'GBP'], ['stg', 'GBP'], ['GBp', 'GBP'],
  ['¥', 'JPY'], ['円', 'JPY'], ['yen', 'JPY'], ['元', 'CNY'], ['人民币', 'CNY'], ['圆', 'CNY'], ['圓', 'TWD'], ['yuan', 'CNY'], ['RMB', 'CNY'],
  ['₹', 'INR'], ['Rs.', 'INR'], ['Rs', 'INR'], ['र', 'NPR'], ['₨', 'PKR'], ['ரூ', 'LKR'], ['රු', 'LKR'], ['Re', 'INR'],
  ['Kč', 'CZK'], ['zł', 'PLN'], ['Zł', 'PLN'], ['zl', 'PLN'], ['pln', 'PLN'],
  ['руб.', 'RUB'], ['руб', 'RUB'], ['р.', 'RUB'], ['₽', 'RUB'], ['Р', 'RUB'], ['Rbl', 'RUB'],
  ['грн.', 'UAH'], ['грн', 'UAH'], ['₴', 'UAH'], ['hrn', 'UAH'], ['тг', 'KZT'], ['₸', 'KZT'],
  ['лв.', 'BGN'], ['лв', 'BGN'], ['ден', 'MKD'], ['ДЕН', 'MKD'], ['дин', 'RSD'], ['Дин', 'RSD'], ['din', 'RSD'], ['Dinara', 'RSD'],
  ['км', 'BAM'], ['KM', 'BAM'], ['с', 'KGS'], ['Br', 'BYN'], ['ብር', 'ETB'],
  ['lei', 'RON'], ['Lei', 'RON'], ['LEI', 'RON'], ['Ft', 'HUF'], ['kn', 'HRK'], ['Lek', 'ALL'],
  ['kr.', 'DKK'], ['kr', 'SEK'], ['Kr', 'SEK'], ['CHF', 'CHF'], ['chf', 'CHF'], ['CHf', 'CHF'], ['Fr.', 'CHF'], ['SFr', 'CHF'], ['GFr', 'CHF'],
  ['TL', 'TRY'], ['₺', 'TRY'], ['₪', 'ILS'], ['ש״ח', 'ILS'], ['ש"ח', 'ILS'], ["ש'ח", 'ILS'], ['nis', 'ILS'],
  ['₫', 'VND'], ['đ', 'VND'], ['VNĐ', 'VND'], ['₩', 'KRW'], ['원', 'KRW'], ['฿', 'THB'], ['บาท', 'THB'], ['₱', 'PHP'], ['Rp', 'IDR'],
  ['RM', 'MYR'], ['₭', 'LAK'], ['៛', 'KHR'], ['₮', 'MNT'], ['Ks', 'MMK'], ['Nu.', 'BTN'], ['Nu', 'BTN'], ['৳', 'BDT'], ['؋', 'AFN'], ['Rf', 'MVR'],
  ['֏', 'AMD'], ['₼', 'AZN'], ['ლ', 'GEL'], ['ლარი', 'GEL'], ['lari', 'GEL'], ["so'm", 'UZS'], ['Sʻ', 'UZS'], ["S'", 'UZS'], ['som', 'KGS'],
  ['تومان', 'IRR'], ['ریال', 'IRR'], ['ريال', 'SAR'], ['﷼', 'SAR'], ['ر.س', 'SAR'], ['ر.ع', 'OMR'], ['ر.ق', 'QAR'], ['ر.ي', 'YER'],
  ['درهم', 'AED'], ['د.إ', 'AED'], ['Dh', 'AED'], ['Dhs', 'AED'], ['د.م', 'MAD'], ['جنيه', 'EGP'], ['ج.م', 'EGP'], ['E£', 'EGP'],
  ['دينار', 'KWD'], ['دينار أردني', 'JOD'], ['دينار كويتي', 'KWD'], ['د.ك', 'KWD'], ['KD', 'KWD'], ['د.أ', 'JOD'], ['د.ا', 'JOD'],
  ['.د.ب', 'BHD'], ['BD', 'BHD'], ['ع.د', 'IQD'], ['د.ع', 'IQD'], ['ل.د', 'LYD'], ['د.ل', 'LYD'], ['LD', 'LYD'], ['د.ت', 'TND'], ['DT', 'TND'],
  ['دج', 'DZD'], ['د.ج', 'DZD'], ['ل.س', 'SYP'], ['ل.ل', 'LBP'], ['ج.س', 'SDG'], ['ج.س.', 'SDG'], ['ش.ج', 'ILS'], ['ش.ص', 'ILS'], ['د.', null],
  ['ናቕፋ', 'ERN'], ['نافكا', 'ERN'], ['Nfk', 'ERN'],
  ['₦', 'NGN'], ['GH₵', 'GHS'], ['₵', 'GHS'], ['KSh', 'KES'], ['KShs', 'KES'], ['TSh', 'TZS'], ['USh', 'UGX'], ['FRw', 'RWF'], ['RF', 'RWF'], ['R₣', 'RWF'],
  ['FBu', 'BIF'], ['Fbu', 'BIF'], ['Fdj', 'DJF'], ['FG', 'GNF'], ['CFA', 'XOF'], ['FCFA', 'XAF'], ['KMF', 'KMF'], ['₣', 'FRF'], ['franc', 'CHF'], ['francs', 'CHF'],
  ['Ar', 'MGA'], ['MT', 'MZN'], ['MK', 'MWK'], ['ZK', 'ZMW'], ['UM', 'MRU'], ['Db', 'STN'], ['VT', 'VUV'], ['Vt', 'VUV'], ['Sl', 'SLL'], ['Le', 'SLL'],
  ['₡', 'CRC'], ['B/.', 'PAB'], ['S/.', 'PEN'], ['S/', 'PEN'], ['Bs', 'VES'], ['Bs.', 'VES'], ['ƒ', 'ANG'], ['Esc', 'CVE'], ['kwz', 'AOA'],
  ['₿', 'BTC'], ['Ƀ', 'BTC'], ['BTC', 'BTC'], ['₶', null], ['¢', null], ['SPL', null], ['CND', 'CAD'], ['ID', null], ['GEL', 'GEL'],
  ['PTE', 'PTE'], ['DEM', 'DEM'], ['FRF', 'FRF'], ['ITL', 'ITL'], ['ESP', 'ESP'],
];

/**
 * Single letters that are currency signs only right next to a number (`R 100`, `100 K`):
 * ZAR rand, Albanian/Honduran lek/lempira, Botswana pula, PNG kina, Guatemalan quetzal,
 * Gambian dalasi, Haitian gourde, Swazi lilangeni. Lowest priority in matching.
 */
export const SINGLE_LETTER_CURRENCIES: ReadonlyArray<readonly [string, string | null]> = [
  ['R', 'ZAR'], ['L', 'ALL'], ['P', 'BWP'], ['K', 'PGK'], ['Q', 'GTQ'], ['q', 'GTQ'], ['D', 'GMD'], ['G', 'HTG'], ['E', 'SZL'],
];
