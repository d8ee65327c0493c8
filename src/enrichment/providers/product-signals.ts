/**
 * Signs that static HTML already carries product data: a JSON-LD `Product`
 * (also inside `@graph` or a type list), a schema.org/Product microdata item, product meta tags
 * (OpenGraph `og:type=product`, `product:price:amount`), or embedded app state a shop renders
 * from (`__NEXT_DATA__`, `__NUXT__`, `window.__INITIAL_STATE__` / `__PRELOADED_STATE__`,
 * `__APOLLO_STATE__`, Shopify's `ShopifyAnalytics.meta.product`).
 */
const SIGNALS: RegExp[] = [
  /<script[^>]+application\/ld\+json[^>]*>[^<]*"@type"\s*:\s*(\[[^\]]*)?"Product"/i,
  /itemtype\s*=\s*["'][^"']*schema\.org\/Product["']/i,
  /<meta[^>]+property\s*=\s*["'](og:type["'][^>]+content\s*=\s*["']product|product:price:amount)/i,
  /id\s*=\s*["']__NEXT_DATA__["']|window\.__NUXT__|__INITIAL_STATE__|__PRELOADED_STATE__|__APOLLO_STATE__|ShopifyAnalytics\.meta\.product/,
];

/** Whether `html` carries product data without running its scripts (see the signals above). */
export function hasProductData(html: string): boolean {
  return SIGNALS.some((s) => s.test(html));
}
