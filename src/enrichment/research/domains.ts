/** Host of a URL in lower case without a trailing dot, or null when the URL does not parse. */
export function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return null;
  }
}

function covers(domain: string, host: string): boolean {
  const d = domain
    .toLowerCase()
    .trim()
    .replace(/^https?:\/\//, '')
    .replace(/\/.*$/, '')
    .replace(/^\*\./, '')
    .replace(/\.$/, '');
  return host === d || host.endsWith(`.${d}`);
}

/**
 * Whether a URL may be used under the request's domain rules (docs/api-enrichment.md "Enrichment jobs" `allowed_domains`
 * / `blocked_domains`): a domain covers itself and its subdomains; blocked wins over allowed;
 * an empty or missing allow-list allows everything.
 */
export function domainAllowed(url: string, allowed?: string[], blocked?: string[]): boolean {
  const host = hostOf(url);
  if (!host) return false;
  if (blocked?.some((d) => covers(d, host))) return false;
  if (allowed && allowed.length > 0) return allowed.some((d) => covers(d, host));
  return true;
}
