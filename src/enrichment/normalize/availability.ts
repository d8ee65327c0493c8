/** schema.org ItemAvailability reduced to the two values the output schema uses. */
export type Availability = 'InStock' | 'OutOfStock';

const OUT =
  /out[\s_-]*of[\s_-]*stock|sold[\s_-]*out|discontinued|unavailable|not available|no longer available|currently unavailable|oos\b|nicht (mehr )?(verfügbar|lieferbar|vorrätig)|ausverkauft|vergriffen|agotado|sin (stock|existencias)|no disponible|épuisé|epuise|rupture de stock|indisponible|non disponibile|esaurito|non più disponibile|niet (op voorraad|leverbaar|beschikbaar)|uitverkocht|brak (w magazynie|towaru)|niedostępny|wyprzedany|нет в наличии|отсутствует|закончился|ei saatavilla|loppu|slutsåld|ikke på lager|udsolgt|esgotado|indisponível|stokta yok|tükendi|není skladem|nie je (na )?sklade|vypredan[éý]|vyprodán[oa]|nelze (koupit|objednat)|nie je možné (\S+ ){0,2}kúpiť|not possible to (buy|order)|cannot be (purchased|ordered)|can't be (purchased|ordered)|nicht bestellbar|nicht (mehr )?erhältlich/i;
const IN =
  /in[\s_-]*stock|available|add to (cart|basket|bag)|auf lager|lieferbar|vorrätig|verfügbar|en stock|disponible|en existencia|disponibile|op voorraad|leverbaar|w magazynie|dostępny|в наличии|есть в наличии|på lager|i lager|em estoque|stokta|limitedavailability|onlineonly|instoreonly|preorder|presale|backorder/i;

/**
 * Maps a schema.org availability URL/term (`http://schema.org/InStock`, `OutOfStock`,
 * `SoldOut`, `Discontinued`, `PreOrder`, …) or a shop phrase in one of about 15 languages
 * ("in stock", "Ausverkauft", "нет в наличии") to InStock/OutOfStock. Out-of-stock phrases are
 * tested first because they often contain an in-stock phrase ("not available").
 * Returns null when the text says neither.
 */
export function normalizeAvailability(text: string | null | undefined): Availability | null {
  const t = (text ?? '').trim();
  if (!t) return null;
  const term = t.replace(/^https?:\/\/schema\.org\//i, '').replace(/\s+/g, '');
  if (/^(InStock|InStoreOnly|OnlineOnly|LimitedAvailability|PreOrder|PreSale|BackOrder|instock|in_stock|available)$/i.test(term)) return 'InStock';
  if (/^(OutOfStock|SoldOut|Discontinued|out_of_stock|oos|outofstock|unavailable)$/i.test(term)) return 'OutOfStock';
  if (OUT.test(t)) return 'OutOfStock';
  if (IN.test(t)) return 'InStock';
  return null;
}
