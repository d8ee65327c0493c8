import type { CheerioAPI } from 'cheerio';

/**
 * OpenGraph properties of a page (ogp.me), and the `product:` namespace
 * (`product:price:amount`, `product:availability`, …) and the `og:price:*` variant some
 * shops use: `<meta property|name="og:…|product:…" content>` in document order, as
 * `[property, value]` pairs like extruct's `properties` list.
 */
export function parseOpenGraph($: CheerioAPI): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  $('meta').each((_, el) => {
    const prop = ($(el).attr('property') ?? $(el).attr('name') ?? '').trim();
    const content = $(el).attr('content');
    if (!/^(og|product):/i.test(prop) || content === undefined) return;
    out.push([prop, content.trim()]);
  });
  return out;
}
