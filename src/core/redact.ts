/** Removes credentials from URLs anywhere in a text (https://user:token@host → https://***@host). */
export function redactUrl(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
}
