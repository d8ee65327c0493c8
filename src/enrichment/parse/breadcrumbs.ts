/**
 * A page's breadcrumb trail as its category path ("Home > Furniture > Tables" → `Furniture`,
 * `Tables`). Read, first found wins, from: a schema.org `BreadcrumbList` in JSON-LD, in
 * microdata or in RDFa Lite (its `itemListElement` ListItems, by `position`; the older
 * data-vocabulary.org `Breadcrumb` chain in microdata too), then from common HTML breadcrumb
 * navigation (`nav[aria-label=breadcrumb]`, elements whose class or id names a breadcrumb; the
 * WAI-ARIA Authoring Practices breadcrumb pattern and the Bootstrap `.breadcrumb` component).
 * The site's root crumb (a "Home" link in any of ~30 languages, a link to the site root, the
 * shop's own name, "All categories") and a trailing crumb naming the page's product itself are
 * dropped: neither is a category.
 */
import * as cheerio from 'cheerio';
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { findNodes } from './jsonld';
import type { MicrodataItem, MicrodataValue } from './microdata';

/** The category path a page states in its breadcrumbs. */
export interface Breadcrumbs {
  /** Crumb names, broadest first, without the site's root crumb and the product's own crumb. */
  path: string[];
  /** Which markup it was read from. */
  origin: 'jsonld' | 'microdata' | 'rdfa' | 'html';
}

/** What the trail is read against: the page URL (root links, shop name) and the product's names (its own crumb). */
export interface BreadcrumbContext {
  url: string;
  /** Names the page gives its product (structured name, og:title, h1); a last crumb equal to one is dropped. */
  productNames: string[];
}

interface Crumb {
  name: string;
  position?: number;
  href?: string;
}

/** "Home" in the languages of the shops we read; compared after folding (lower case, no marks). */
const HOME =
  /^(home|home ?page|homepage|start|start ?page|startseite|accueil|inicio|inicial|pagina inicial|pagina principal|home page|hem|hjem|forside|etusivu|fooldal|kezdolap|domu|uvod|domov|strona głowna|głowna|главная|головна|начало|pocetna|naslovna|αρχικη|ana sayfa|anasayfa|首页|首頁|主页|ホーム|トップ|홈|עמוד הבית|הבית|الرئيسية|trang chu|หนาแรก|beranda|startpagina|hoofdpagina|pagrindinis|sakums|avaleht)$/u;
/** Root crumbs of a catalog ("All categories", "Categorías"): the whole shop, no category. */
const ROOT =
  /^(all ?(categories|departments|industries|products)|categories|shop|shop all|catalog|catalogue|katalog|todas las categorias|categorias|alle kategorien|kategorien|toutes les categories|categories de produits|tutte le categorie|categorie|wszystkie kategorie|kategorie|все категории|каталог|todas as categorias)$/u;
/** Navigation controls that sit in breadcrumb bars but are no crumbs ("‹ Back to results"). */
const CONTROL = /^(back|return|zuruck|retour|volver|voltar|torna|indietro|terug|wstecz|назад)\b/u;
/** A label-and-code crumb ("SKU: W005759888", "Art.-Nr. 12345"): the page's identifier, not a category. */
const CODE = /^[\p{L}.\- ]{2,16}[:#]\s*[\p{L}\p{N}-]*\d[\p{L}\p{N}-]*$/u;
/** A last crumb that names the page type, not a category ("Product Details"). */
const PAGE_CRUMB =
  /^(product details?|details|product|produktdetails|produktdetail|details du produit|detalles del producto|dettagli prodotto|detalhes do produto|szczegoly produktu)$/u;
/** Separators written as crumbs or around them. */
const SEPARATORS = /^[\s›»>→/|\\·•:‹«<-]+|[\s›»>→/|\\·•:‹«<-]+$/g;

const MAX_CRUMB = 80;
const MAX_CRUMBS = 10;

function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Text with HTML entities decoded (`Kitchen &amp; Tabletop`), tags dropped and whitespace collapsed. */
function plain(text: string): string {
  const decoded = /[<&]/.test(text) ? cheerio.load(text, null, false).root().text() : text;
  return decoded.replace(/\s+/g, ' ').trim();
}

function str(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return str(value[0]);
  return undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A property of a microdata item or JSON-LD node by name, case-insensitively (`ItemListElement` is common). */
function prop(bag: Record<string, unknown>, name: string): unknown {
  if (name in bag) return bag[name];
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : bag[key];
}

function jsonLdTrails(blocks: unknown[]): Crumb[][] {
  return findNodes(blocks, ['BreadcrumbList']).map(({ node }) =>
    list(prop(node, 'itemListElement')).flatMap((raw): Crumb[] => {
      const li = asObject(raw);
      if (!li) return [];
      const item = asObject(li.item);
      const name = str(li.name) ?? (item ? str(item.name) : undefined);
      const href = typeof li.item === 'string' ? li.item : item ? (str(item['@id']) ?? str(item.url)) : undefined;
      const position = Number(str(li.position));
      return name ? [{ name, href, ...(Number.isFinite(position) ? { position } : {}) }] : [];
    }),
  );
}

function types(item: MicrodataItem): string[] {
  return (Array.isArray(item.type) ? item.type : item.type ? [item.type] : []).map((t) => t.replace(/^.*[/#]/, '').toLowerCase());
}

function microdataTrails(items: MicrodataItem[]): Crumb[][] {
  const all: MicrodataItem[] = [];
  const visit = (item: MicrodataItem, depth: number): void => {
    if (depth > 12) return;
    all.push(item);
    for (const value of Object.values(item.properties)) for (const v of list(value) as MicrodataValue[]) if (typeof v === 'object') visit(v, depth + 1);
  };
  items.forEach((i) => visit(i, 0));
  const trails = all
    .filter((i) => types(i).includes('breadcrumblist'))
    .map((trail) =>
      list(prop(trail.properties, 'itemListElement')).flatMap((raw): Crumb[] => {
        if (typeof raw !== 'object' || raw === null) return [];
        const li = raw as MicrodataItem;
        const item = prop(li.properties, 'item');
        const nested = typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as MicrodataItem) : undefined;
        const name = str(prop(li.properties, 'name')) ?? (nested ? str(prop(nested.properties, 'name')) : undefined);
        const href = typeof item === 'string' ? item : (nested?.id ?? (nested ? str(prop(nested.properties, 'url')) : undefined));
        const position = Number(str(prop(li.properties, 'position')));
        return name ? [{ name, href, ...(Number.isFinite(position) ? { position } : {}) }] : [];
      }),
    );
  // data-vocabulary.org Breadcrumb: one item per crumb (`title`, `url`), in document order.
  const legacy = all
    .filter((i) => types(i).includes('breadcrumb'))
    .flatMap((i): Crumb[] => {
      const name = str(prop(i.properties, 'title'));
      return name ? [{ name, href: str(prop(i.properties, 'url')) }] : [];
    });
  return [...trails, legacy];
}

/** Whether an RDFa attribute (`typeof`, `property`: space-separated, possibly prefixed terms) holds `term`. */
function hasTerm($: CheerioAPI, el: Element, attr: string, term: string): boolean {
  return ($(el).attr(attr) ?? '').split(/\s+/).some((t) => t.replace(/^.*[/#:]/, '').toLowerCase() === term.toLowerCase());
}

function rdfaTrails($: CheerioAPI): Crumb[][] {
  return $('[typeof]')
    .toArray()
    .filter((el) => hasTerm($, el, 'typeof', 'BreadcrumbList'))
    .map((trail) =>
      $(trail)
        .find('[property]')
        .toArray()
        .filter((el) => hasTerm($, el, 'property', 'itemListElement'))
        .flatMap((li): Crumb[] => {
          const value = (term: string): string | undefined => {
            const el = [li, ...$(li).find('[property]').toArray()].find((e) => e !== li && hasTerm($, e, 'property', term));
            return el ? str($(el).attr('content') ?? $(el).text()) : undefined;
          };
          const itemEl = $(li)
            .find('[property]')
            .toArray()
            .find((e) => hasTerm($, e, 'property', 'item'));
          const name = value('name');
          const position = Number(value('position'));
          return name
            ? [{ name, href: itemEl ? ($(itemEl).attr('href') ?? $(itemEl).attr('resource')) : undefined, ...(Number.isFinite(position) ? { position } : {}) }]
            : [];
        }),
    );
}

/** Breadcrumb containers of plain HTML, outermost first in document order. */
const CONTAINERS = 'nav[aria-label*="breadcrumb" i], [aria-label*="breadcrumb" i], [class*="breadcrumb" i], [id*="breadcrumb" i]';
/** A container larger than this is a page region that merely carries a breadcrumb class, not the trail. */
const MAX_CONTAINER_TEXT = 600;

function htmlTrails($: CheerioAPI): Crumb[][] {
  const trails: Crumb[][] = [];
  for (const el of $(CONTAINERS).toArray()) {
    const $el = $(el);
    if (/^(script|style|meta|link|body|html)$/i.test(el.tagName) || $el.text().replace(/\s+/g, ' ').trim().length > MAX_CONTAINER_TEXT) continue;
    // Leaf list items (each a crumb), else the links (the page's own crumb is often unlinked and dropped anyway).
    const items = $el
      .find('li')
      .toArray()
      .filter((li) => $(li).find('li').length === 0);
    const nodes = items.length > 0 ? items : $el.find('a').toArray();
    trails.push(nodes.map((n) => ({ name: $(n).text(), href: $(n).is('a') ? $(n).attr('href') : $(n).find('a').first().attr('href') })));
  }
  return trails;
}

/** Whether a link points at the site's root (`/`, `/en-ca`, `/de/`, `/index.html`) of the page's host. */
function rootLink(href: string | undefined, pageUrl: string): boolean {
  if (!href) return false;
  try {
    const u = new URL(href, pageUrl);
    return u.host === new URL(pageUrl).host && /^\/?([a-z]{2}([-_][a-z]{2,4})?\/?)?(index\.\w+)?$/i.test(u.pathname) && !u.search;
  } catch {
    return false;
  }
}

/** Whether a crumb names the shop itself: its folded letters are the host or one of its labels (`Nay.sk`, `Leroy Merlin`, `ZARA`). */
function siteName(name: string, pageUrl: string): boolean {
  let host = '';
  try {
    host = new URL(pageUrl).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return false;
  }
  const squashed = fold(name).replace(/[^\p{L}\p{N}]/gu, '');
  if (squashed.length < 3) return false;
  return squashed === host.replace(/[^a-z0-9]/g, '') || host.split('.').some((label) => label.length >= 3 && label.replace(/[^a-z0-9]/g, '') === squashed);
}

/**
 * Cleans a raw trail into a category path: ordered by `position` when every crumb has one,
 * names decoded and trimmed of separators, controls/codes/over-long names dropped, then the
 * leading root crumbs and a trailing crumb naming the product (or the page type) removed.
 */
function categoryPath(raw: Crumb[], ctx: BreadcrumbContext): string[] {
  const ordered = raw.every((c) => c.position !== undefined) ? [...raw].sort((a, b) => (a.position as number) - (b.position as number)) : raw;
  const crumbs = ordered
    .map((c) => ({ ...c, name: plain(c.name).replace(SEPARATORS, '').trim() }))
    .filter((c) => c.name && c.name.length <= MAX_CRUMB && !CONTROL.test(fold(c.name)) && !CODE.test(c.name));
  while (crumbs.length > 0) {
    const first = crumbs[0];
    const f = fold(first.name);
    if (!(HOME.test(f) || HOME.test(first.name.toLowerCase()) || ROOT.test(f) || siteName(first.name, ctx.url) || rootLink(first.href, ctx.url))) break;
    crumbs.shift();
  }
  if (crumbs.length > 0 && PAGE_CRUMB.test(fold(crumbs[crumbs.length - 1].name))) crumbs.pop();
  const last = crumbs[crumbs.length - 1];
  if (last) {
    const name = fold(last.name);
    const own = ctx.productNames.map(fold).filter(Boolean);
    // The product's own crumb: its name, or its name cut short by the shop ("Usha Bloom Promise 1250 mm…").
    if (own.some((n) => n === name || (name.length >= 12 && n.startsWith(name.replace(/[….]+$/, ''))))) crumbs.pop();
  }
  const names: string[] = [];
  for (const c of crumbs) if (names[names.length - 1] !== c.name) names.push(c.name);
  return names.slice(0, MAX_CRUMBS);
}

/**
 * The page's breadcrumb trail as a category path (see the module comment for sources, order
 * and cleaning). `$` should be the page without scripts (HTML breadcrumbs are read from
 * visible text); `jsonld` and `microdata` are the page's parsed blocks and items.
 * @returns the path and its origin, or undefined when the page states no breadcrumbs (or only
 *   the root and the product itself)
 */
export function parseBreadcrumbs($: CheerioAPI, jsonld: unknown[], microdata: MicrodataItem[], ctx: BreadcrumbContext): Breadcrumbs | undefined {
  const readers: Array<[Breadcrumbs['origin'], () => Crumb[][]]> = [
    ['jsonld', () => jsonLdTrails(jsonld)],
    ['microdata', () => microdataTrails(microdata)],
    ['rdfa', () => rdfaTrails($)],
    ['html', () => htmlTrails($)],
  ];
  for (const [origin, read] of readers) {
    for (const raw of read()) {
      const path = raw.length > 0 ? categoryPath(raw, ctx) : [];
      if (path.length > 0) return { path, origin };
    }
  }
  return undefined;
}

/** The breadcrumb path joined as a category statement ("Furniture > Tables"), or undefined. */
export function breadcrumbPath(crumbs: Breadcrumbs | undefined): string | undefined {
  return crumbs && crumbs.path.length > 0 ? crumbs.path.join(' > ') : undefined;
}
