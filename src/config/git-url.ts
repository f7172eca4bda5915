/**
 * Why a git source URL must not be used, or null when it may. git reads a "URL" that starts with
 * "-" as an option (--upload-pack=<command> runs that command) and "<transport>::<address>" as a
 * transport helper (ext::<command> runs a command); neither is a place to fetch Markdown from, and
 * a config that reaches ragsync from elsewhere must not be able to run programs through it.
 */
export function unsafeGitUrl(url: string): string | null {
  if (url.startsWith('-')) return 'a git URL must not start with "-" (git would read it as an option)';
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(url)) return 'a git URL must not contain control characters';
  const helper = /^([A-Za-z][A-Za-z0-9+.-]*)::/.exec(url);
  if (helper) return `git transport helpers ("${helper[1]}::…") are not allowed: use an https://, ssh://, git@host: or file path URL`;
  return null;
}
