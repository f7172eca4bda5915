import { createRequire } from 'node:module';

type Domino = { createDocument(html: string, force?: boolean): Document };
// Required on first use: a run that parses no HTML (a git source's no-op) does not load it.
let domino: Domino | undefined;

/**
 * An HTML page parsed into a DOM (domino, forgiving as browsers are). The source that fetched a
 * page parses it for its links and hands the same document to the content step, so no page is
 * parsed twice.
 */
export const parseHtml = (html: string): Document => (domino ??= createRequire(import.meta.url)('@mixmark-io/domino') as Domino).createDocument(html, true);

/** A document's text as its chunker reads it, with its media type (HTML converted: Markdown). */
export interface PreparedText {
  text: string;
  mediaType: string;
}

/**
 * The content step of a source's pipeline for a page the source parsed already: converts the
 * document at `url` (which it may change; it is not used after). Given to the source by sync;
 * none when the chunker reads HTML as written.
 */
export type HtmlPreparer = (doc: Document, url: string) => PreparedText;
