import { sha256 } from '../../core/hash.ts';
import { parseHtml, type HtmlPreparer, type PreparedText } from '../../core/html-page.ts';
import { documentToMarkdown, type HtmlOptions } from './html.ts';
import { HTML, MARKDOWN, mediaTypeOfHeader, mediaTypeOfPath } from './media-type.ts';

export { type HtmlOptions } from './html.ts';
export { frontMatter } from '../../core/media-type.ts';
export { HTML, MARKDOWN, PLAIN, mediaTypeOfHeader, mediaTypeOfPath } from './media-type.ts';

/** A document's text before chunking, with what it is. */
export interface Content {
  path: string;
  text: string;
  mediaType: string;
}

/** What the content step of a source may be told (a web source's selectors). */
export interface ContentOptions {
  html: HtmlOptions;
}

export const DEFAULT_CONTENT: ContentOptions = { html: { excludeSelectors: [] } };

/**
 * A step between reading a document and chunking it, for one media type: turns the text into
 * what the chunkers read (HTML into Markdown). Its fingerprint is part of the document's, so a
 * converter that changes re-chunks the documents it converted, and only those.
 */
interface ContentPipeline {
  readonly mediaType: string;
  fingerprint(o: ContentOptions): string;
  convert(c: Content, o: ContentOptions): Content;
}

const hashOf = (v: unknown) => sha256(JSON.stringify(v)).slice(0, 8);

/** HTML → Markdown from a parsed page: what the HTML pipeline converts, whoever parsed the page. */
const htmlFromDocument = (doc: Document, path: string, o: ContentOptions): PreparedText => ({ text: documentToMarkdown(doc, path, o.html), mediaType: MARKDOWN });

/** Bump a pipeline's version when its output for the same input changes. */
const PIPELINES: ContentPipeline[] = [
  {
    mediaType: HTML,
    fingerprint: (o) => `html@2${o.html.contentSelector || o.html.excludeSelectors.length ? `:${hashOf(o.html)}` : ''}`,
    convert: (c, o) => ({ path: c.path, ...htmlFromDocument(parseHtml(c.text), c.path, o) }),
  },
];

/**
 * The content step for a media type, or null when the chunker reads the text as it is (Markdown,
 * plain text, code; and everything for a chunker that reads files as written).
 */
function pipelineFor(mediaType: string, takesAsWritten: boolean): ContentPipeline | null {
  return takesAsWritten ? null : (PIPELINES.find((p) => p.mediaType === mediaType) ?? null);
}

/** What a document is: as its source said (a web page's Content-Type), else as its name tells. */
export const mediaTypeOf = (path: string, declared?: string): string => (declared ? mediaTypeOfHeader(declared) : mediaTypeOfPath(path));

/** The part of a document's pipeline fingerprint its content step adds ('' for text read as it is). */
export function contentFingerprint(mediaType: string, takesAsWritten: boolean, o: ContentOptions): string {
  const p = pipelineFor(mediaType, takesAsWritten);
  return p ? `+${p.fingerprint(o)}` : '';
}

/**
 * The content step for HTML pages a source parses itself (a web crawl reads their links): the
 * document converted as prepareContent would convert its text, not parsed again. None when the
 * chunker reads HTML as written.
 */
export function htmlPreparer(takesAsWritten: boolean, o: ContentOptions): HtmlPreparer | undefined {
  return pipelineFor(HTML, takesAsWritten) ? (doc, url) => htmlFromDocument(doc, url, o) : undefined;
}

/** Converts a document for its chunker; text the chunker reads as it is passes through unchanged. */
export function prepareContent(c: Content, takesAsWritten: boolean, o: ContentOptions): Content {
  const p = pipelineFor(c.mediaType, takesAsWritten);
  return p ? p.convert(c, o) : c;
}
