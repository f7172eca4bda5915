/**
 * JSON with comments: `//` and `/* *\/` comments and trailing commas are blanked out (each
 * character replaced by a space, line ends kept) so that JSON.parse's positions are the file's.
 * `trailingCommas: false` leaves those commas (an editor needs to see them).
 */
export function stripJsonc(text: string, trailingCommas = true): string {
  const out = text.split('');
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (out[i] !== '\n' && out[i] !== '\r') out[i] = ' ';
  };
  let lastSignificant = -1; // index of the last non-space character outside comments
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"' && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      i = j;
      lastSignificant = j;
    } else if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      blank(i, stop);
      i = stop - 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      blank(i, stop);
      i = stop - 1;
    } else if (c === '}' || c === ']') {
      if (trailingCommas && lastSignificant >= 0 && out[lastSignificant] === ',') out[lastSignificant] = ' ';
      lastSignificant = i;
    } else if (!/\s/.test(c)) lastSignificant = i;
  }
  return out.join('');
}

/** The 1-based line and column of a character offset into `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

/** A syntax error at a line and column of the text. */
export class JsoncSyntaxError extends SyntaxError {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`${line}:${column}: ${reason}`);
  }
}

/**
 * Where JSON.parse gave up, and why: V8 does not always say ("Unexpected token '}', "…" is not
 * valid JSON"), so a small scanner walks the text to the first character that cannot come next.
 */
export function syntaxErrorAt(text: string): { offset: number; reason: string } | null {
  let i = 0;
  const fail = (reason: string): never => {
    throw { offset: i, reason };
  };
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const shown = () => (i >= text.length ? 'the end of the file' : JSON.stringify(text[i]));
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail(`expected a property name in double quotes, found ${shown()}`);
        string();
        ws();
        if (text[i] !== ':') fail(`expected ":" after the property name, found ${shown()}`);
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail(`expected "," or "}" after a property value, found ${shown()}`);
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail(`expected "," or "]" after an array element, found ${shown()}`);
      }
    }
    if (c === '"') return string();
    const lit = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (lit) return void (i += lit[0].length);
    fail(`expected a value, found ${shown()}`);
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\n') fail('a line break inside a string (missing closing quote?)');
      i += text[i] === '\\' ? 2 : 1;
    }
    if (i >= text.length) fail('unterminated string');
    i++;
  };
  try {
    value();
    ws();
    if (i < text.length) fail(`unexpected ${shown()} after the end of the JSON value`);
    return null;
  } catch (e) {
    if (e && typeof e === 'object' && 'offset' in e) return e as { offset: number; reason: string };
    throw e;
  }
}

/** Parses JSON with comments and trailing commas; a syntax error names its line and column. */
export function parseJsonc(text: string): unknown {
  const stripped = stripJsonc(text.replace(/^\uFEFF/, ''));
  try {
    return JSON.parse(stripped);
  } catch (err) {
    const at = syntaxErrorAt(stripped);
    if (!at) throw err;
    const { line, column } = lineColumn(stripped, at.offset);
    throw new JsoncSyntaxError(line, column, at.reason);
  }
}
