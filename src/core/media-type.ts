/** The media types documents carry (sources set them, the content step reads them). */
export const HTML = 'text/html';
export const MARKDOWN = 'text/markdown';
export const PLAIN = 'text/plain';

/**
 * A page's title and URL as Markdown front matter (the results' title and url): what the content
 * step puts before a converted HTML page and the web source before a Markdown page.
 */
export function frontMatter(title: string | null, url: string | null): string {
  const line = (x: string) => x.replace(/[\r\n]+/g, ' ').trim();
  return `---\n${title ? `title: ${line(title)}\n` : ''}${url ? `url: ${url}\n` : ''}---\n\n`;
}
