import { createRequire } from 'node:module';
import type TurndownService from 'turndown';
import { parseHtml } from '../../core/html-page.ts';
import { frontMatter } from '../../core/media-type.ts';

/** Left out of every page's text: navigation, chrome and code that is not content. */
const CHROME = ['script', 'style', 'noscript', 'template', 'iframe', 'svg', 'canvas', 'form', 'nav', 'header', 'footer', 'aside', '[role=navigation]', '[role=banner]', '[role=contentinfo]', '[aria-hidden=true]'];

let converter: TurndownService | null = null;
function turndown(): TurndownService {
  if (converter) return converter;
  // Required here, not imported: turndown (and the DOM it brings) loads only in a run that converts
  // HTML, and stays out of the CLI bundle every command reads.
  const require = createRequire(import.meta.url);
  const Turndown = require('turndown') as typeof TurndownService;
  const t = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', fence: '```', bulletListMarker: '-', emDelimiter: '*' });
  t.use((require('@joplin/turndown-plugin-gfm') as { gfm: TurndownService.Plugin }).gfm);
  // An underscore in text stays one: `snake_case` is searched as written, and emphasis is written
  // with * (emDelimiter), so a bare _ in the text cannot be read as it. Other escapes are kept.
  const escape = t.escape.bind(t);
  t.escape = (s: string) => escape(s).replace(/(?<!\\)\\_/g, '_');
  // Fenced code keeps its language wherever the page says it: class language-x / lang-x /
  // highlight-source-x (the gfm plugin reads some), or data-lang / data-language on pre or code.
  t.addRule('fencedCodeWithLanguage', {
    filter: (node) => node.nodeName === 'PRE',
    replacement: (_content, node) => {
      const pre = node as HTMLElement;
      const code = pre.querySelector('code');
      const lang = languageOf(pre) ?? (code ? languageOf(code) : null) ?? languageOf(pre.parentElement);
      const text = (code ?? pre).textContent ?? '';
      const longest = Math.max(2, ...[...text.matchAll(/`{3,}/g)].map((m) => m[0].length));
      const fence = '`'.repeat(longest + 1);
      return `\n\n${fence}${lang ?? ''}\n${text.replace(/\n$/, '')}\n${fence}\n\n`;
    },
  });
  converter = t;
  return t;
}

/** A link as a reader follows it: absolute, fragment kept. */
function absolute(href: string, base: string): string | null {
  try {
    const u = new URL(href, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/** domino's node lists are array-like, not iterable. */
const all = (el: ParentNode, sel: string): Element[] => Array.prototype.slice.call(el.querySelectorAll(sel)) as Element[];

function languageOf(el: Element | null): string | null {
  if (!el) return null;
  const data = el.getAttribute('data-lang') ?? el.getAttribute('data-language');
  if (data && /^[\w+#.-]{1,30}$/.test(data)) return data.toLowerCase();
  const m = /(?:^|\s)(?:language-|lang-|highlight-source-|highlight-)([\w+#.-]{1,30})(?:\s|$)/.exec(el.getAttribute('class') ?? '');
  return m ? m[1]!.toLowerCase() : null;
}


export interface HtmlOptions {
  /** CSS selector of the part of a page to keep (default: main, article, [role=main], else body). */
  contentSelector?: string;
  /** CSS selectors removed besides the page chrome (nav, header, footer, aside, script …). */
  excludeSelectors: string[];
}

/**
 * An HTML document → Markdown: its title (and, for a page of a site, its URL) as front matter,
 * then the content with headings, fenced code with its language, GFM tables (a `|` in a cell
 * escaped) and links made absolute against the page's URL (or its <base>). Navigation, headers,
 * footers and whatever `excludeSelectors` names are left out; `contentSelector` (else main,
 * article or [role=main], else body) picks what is kept.
 */
export function htmlToMarkdown(html: string, path: string, o: HtmlOptions): string {
  return documentToMarkdown(parseHtml(html), path, o);
}

/**
 * As htmlToMarkdown, from a page parsed already (turndown is handed a DOM node, never a string to
 * parse again). The document is changed: what is left out is removed from it.
 */
export function documentToMarkdown(doc: Document, path: string, o: HtmlOptions): string {
  const pageUrl = absolute(path, path);
  const base = (pageUrl && absolute(doc.querySelector('base[href]')?.getAttribute('href') ?? '', pageUrl)) || pageUrl;
  const abs = (href: string) => (base ? absolute(href, base) : null) ?? href;
  const title = (doc.querySelector('title')?.textContent ?? doc.querySelector('h1')?.textContent ?? '').replace(/\s+/g, ' ').trim() || null;
  const root =
    (o.contentSelector ? doc.querySelector(o.contentSelector) : null) ??
    doc.querySelector('main, article, [role=main]') ??
    doc.body ??
    doc.documentElement;
  for (const sel of [...CHROME, ...o.excludeSelectors]) for (const el of all(root, sel)) el.remove();
  for (const a of all(root, 'a[href]')) {
    const href = a.getAttribute('href')!;
    // In-page anchors stay as they are; every other link points somewhere a reader can follow.
    if (!href.startsWith('#')) a.setAttribute('href', abs(href));
  }
  for (const img of all(root, 'img[src]')) img.setAttribute('src', abs(img.getAttribute('src')!));
  const markdown = turndown().turndown(root as unknown as HTMLElement).replace(/\n{3,}/g, '\n\n').trim();
  return frontMatter(title, pageUrl) + markdown + '\n';
}
