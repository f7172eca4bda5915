import { parseTree, printParseErrorCode, visit, type Node, type ParseError } from 'jsonc-parser';

/** JSON with comments and trailing commas, as VS Code reads its settings (jsonc-parser). */
const OPTIONS = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false } as const;

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

/** Parses JSON with comments and trailing commas; a syntax error names its line and column. */
export function parseJsonc(text: string): unknown {
  const body = text.replace(/^\uFEFF/, '');
  const errors: ParseError[] = [];
  const tree = parseTree(body, errors, OPTIONS);
  if (errors.length || !tree) throw firstError(body);
  return valueOf(tree);
}

/** The parse tree's value, every object an ordinary one with own properties (as JSON.parse makes them, "__proto__" too). */
function valueOf(node: Node): unknown {
  if (node.type === 'array') return node.children!.map(valueOf);
  if (node.type === 'object') return Object.fromEntries(node.children!.map((p) => [p.children![0]!.value as string, valueOf(p.children![1]!)]));
  return node.value;
}

/** The first syntax error, in words, with the container it happened in (a missing comma says which bracket). */
function firstError(text: string): JsoncSyntaxError {
  const open: ('{' | '[')[] = [];
  let first: JsoncSyntaxError | undefined;
  visit(
    text,
    {
      onObjectBegin: () => void open.push('{'),
      onObjectEnd: () => void open.pop(),
      onArrayBegin: () => void open.push('['),
      onArrayEnd: () => void open.pop(),
      onError: (code, offset, _length, line, character) => {
        first ??= new JsoncSyntaxError(line + 1, character + 1, reason(printParseErrorCode(code), text, offset, open.at(-1)));
      },
    },
    OPTIONS,
  );
  return first ?? new JsoncSyntaxError(1, 1, 'expected a value, found the end of the file');
}

function reason(code: ReturnType<typeof printParseErrorCode>, text: string, offset: number, inside: '{' | '[' | undefined): string {
  const found = offset >= text.length ? 'the end of the file' : JSON.stringify(text[offset]);
  const afterValue = inside === '[' ? `expected "," or "]" after an array element, found ${found}` : `expected "," or "}" after a property value, found ${found}`;
  switch (code) {
    case 'PropertyNameExpected':
      return `expected a property name in double quotes, found ${found}`;
    case 'ValueExpected':
      return `expected a value, found ${found}`;
    case 'ColonExpected':
      return `expected ":" after the property name, found ${found}`;
    case 'CommaExpected':
    case 'CloseBraceExpected':
    case 'CloseBracketExpected':
      return afterValue;
    case 'EndOfFileExpected':
      return `unexpected ${found} after the end of the JSON value`;
    case 'UnexpectedEndOfString':
      return 'unterminated string (a missing closing quote, or a line break inside it)';
    case 'UnexpectedEndOfComment':
      return 'unterminated /* comment';
    case 'InvalidNumberFormat':
    case 'UnexpectedEndOfNumber':
      return 'not a valid number';
    case 'InvalidUnicode':
    case 'InvalidEscapeCharacter':
      return 'an invalid escape sequence in a string';
    case 'InvalidCharacter':
      return 'a control character inside a string (write it escaped)';
    default:
      return `unexpected ${found}`;
  }
}
