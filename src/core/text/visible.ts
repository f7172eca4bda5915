/**
 * Text from documents as a terminal may be given it: control characters that would drive the
 * terminal (ESC starting an OSC title change or a CSI screen clear, C1 controls, BEL, backspace,
 * carriage return…) shown as escapes instead of sent raw. Newline and tab stay. So are the
 * bidirectional overrides, embeddings, isolates and marks, which make a terminal show text in
 * another order than it is ("Trojan Source"). C0 controls become `\x1b`; DEL, C1 and the bidi
 * controls become `\u009b` / `\u202e`, a form that is also a valid escape inside a JSON string, so
 * JSON output (which leaves them raw) passes through unchanged in meaning.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function visible(text: string): string {
  CONTROL.lastIndex = 0;
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
