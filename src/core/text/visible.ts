/**
 * Text from documents as a terminal may be given it: control characters that would drive the
 * terminal (ESC starting an OSC title change or a CSI screen clear, C1 controls, BEL, backspace,
 * carriage return…) shown as escapes instead of sent raw. Newline and tab stay. C0 controls
 * become `\x1b`; DEL and C1 become `\u009b`, a form that is also a valid escape inside a JSON
 * string, so JSON output (which leaves them raw) passes through unchanged in meaning.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

export function visible(text: string): string {
  CONTROL.lastIndex = 0;
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u00${code.toString(16)}`;
  });
}
