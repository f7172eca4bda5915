/**
 * A page's bytes → text, the encoding found as the WHATWG HTML spec's sniffing algorithm finds it
 * (https://html.spec.whatwg.org/#encoding-sniffing-algorithm): a byte-order mark first (it says
 * unambiguously what the bytes are, and browsers let it win over the header), then the charset of
 * the Content-Type header, then, for HTML, a `<meta charset>` or `<meta http-equiv=Content-Type>`
 * in the first 1024 bytes; else UTF-8. Labels are the Encoding Standard's (TextDecoder's: gb2312
 * → gbk, latin1 → windows-1252 …), so GBK, GB18030, Big5, Shift_JIS and EUC-KR pages decode.
 */
export function decodePage(body: Uint8Array, contentType: string, html: boolean): string {
  const encoding = bomEncoding(body) ?? known(charsetParam(contentType)) ?? (html ? metaCharset(body) : null) ?? 'utf-8';
  // The decoder drops a BOM of its own encoding; a mismatched label never reaches here (BOM first).
  return new TextDecoder(encoding).decode(body);
}

function bomEncoding(b: Uint8Array): string | null {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8';
  if (b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  if (b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  return null;
}

/** The Encoding Standard's name for a label, or null when it names none. */
function known(label: string | null): string | null {
  if (!label) return null;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return null;
  }
}

const charsetParam = (value: string): string | null => /(?:^|[;\s])charset\s*=\s*["']?([^"';\s]+)/i.exec(value)?.[1] ?? null;

/**
 * The prescan's answer over the first 1024 bytes (read as Latin-1, so every byte is one
 * character): the first `<meta>` naming a charset that is known. Comments are passed over. As
 * the spec says, a UTF-16 label there means UTF-8 (the bytes were ASCII-compatible to be read),
 * and x-user-defined means windows-1252.
 */
function metaCharset(body: Uint8Array): string | null {
  const head = Buffer.from(body.subarray(0, 1024)).toString('latin1').replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  for (const m of head.matchAll(/<meta(?=[\s/])([^>]*)>?/gi)) {
    const attrs = attributes(m[1]!);
    let label: string | null = null;
    if (attrs.has('charset')) label = attrs.get('charset')!;
    else if (attrs.get('http-equiv')?.toLowerCase() === 'content-type' && attrs.has('content')) label = charsetParam(attrs.get('content')!);
    // Node's TextDecoder has no x-user-defined: the label is told before it is looked up.
    if (label?.trim().toLowerCase() === 'x-user-defined') return 'windows-1252';
    const enc = known(label?.trim() ?? null);
    if (!enc) continue;
    return enc === 'utf-16le' || enc === 'utf-16be' ? 'utf-8' : enc;
  }
  return null;
}

/** A tag's attributes, names lower-cased; the first of a repeated name wins. */
function attributes(s: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const a of s.matchAll(/([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
    const name = a[1]!.toLowerCase();
    if (!out.has(name)) out.set(name, a[2] ?? a[3] ?? a[4] ?? '');
  }
  return out;
}
