/**
 * commander's error as one line: its "(Did you mean x?)" joined on, and what to do next. An unknown
 * option gets the `--` hint when the command takes an argument that could start with "-"
 * (`dashHint`: what such an argument is, e.g. "a query"), and no suggestion was closer.
 */
export function errorLine(str: string, dashHint?: { what: string; command: string }): string {
  let s = str.replace(/\n\(Did you mean (.+?)\?\)/, ' (did you mean $1?)');
  const option = /^error: unknown option '(-[^']*)'\n$/.exec(s);
  if (option && dashHint) {
    s = `${s.trimEnd()} (${dashHint.what} that starts with "-" goes after --: ragsync ${dashHint.command} -- "${option[1]}")\n`;
  } else if (/^error: unknown command '[^']*'\n$/.test(s)) {
    s = `${s.trimEnd()} (ragsync --help lists the commands)\n`;
  }
  return s;
}
