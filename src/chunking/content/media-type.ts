import { namedLanguage } from '../code/languages.ts';

import { HTML, MARKDOWN, PLAIN } from '../../core/media-type.ts';

export { HTML, MARKDOWN, PLAIN };

/** Content-Type spellings of the same media types. */
const ALIASES: Record<string, string> = {
  'application/xhtml+xml': HTML,
  'text/x-markdown': MARKDOWN,
};

/** A Content-Type header (or any spelling of a media type) reduced to its type: no parameters, lower case. */
export function mediaTypeOfHeader(contentType: string): string {
  const t = contentType.split(';')[0]!.trim().toLowerCase();
  return ALIASES[t] ?? t;
}

/**
 * A file's media type told by its name: Markdown, HTML and plain text by
 * extension, source code as `text/x-<language>` (the code chunker's language names), anything else
 * plain text.
 */
export function mediaTypeOfPath(path: string): string {
  if (/\.(markdown|xhtml)$/i.test(path)) return path.toLowerCase().endsWith('.xhtml') ? HTML : MARKDOWN;
  const name = namedLanguage(path);
  if (name === 'markdown') return MARKDOWN;
  if (name === 'html') return HTML;
  if (!name || name === 'text') return PLAIN;
  return `text/x-${name}`;
}
