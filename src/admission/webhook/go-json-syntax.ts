// Go's encoding/json syntax errors for a webhook's answer ("invalid character 'x' looking for
// beginning of value", "unexpected end of JSON input"): the same byte-by-byte scan as Go's
// scanner, so a webhook answering garbage is reported in kube's words.

const MAX_DEPTH = 10_000;

/** Go's quoteChar: the offending byte as Go prints it. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\' };
  if (named[c]) return `'${named[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}

class SyntaxErr extends Error {}
const fail = (c: number, context: string): never => {
  throw new SyntaxErr(`invalid character ${quoteChar(c)} ${context}`);
};

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** The Go error for `data`, or undefined when it is one well-formed JSON value. */
export function goJsonSyntaxError(data: Uint8Array): string | undefined {
  let i = 0;
  const eof = (): never => {
    throw new SyntaxErr('unexpected end of JSON input');
  };
  const next = (): number => (i < data.length ? data[i++]! : eof());
  const skip = (): number => {
    let c = next();
    while (isSpace(c)) c = next();
    return c;
  };
  const literal = (word: string): void => {
    for (let k = 1; k < word.length; k++) {
      const c = next();
      if (c !== word.charCodeAt(k)) fail(c, `in literal ${word} (expecting '${word[k]}')`);
    }
  };
  const string = (): void => {
    for (;;) {
      const c = next();
      if (c === 0x22) return;
      if (c === 0x5c) {
        const e = next();
        if (e === 0x75) {
          for (let k = 0; k < 4; k++) {
            const h = next();
            if (!isHex(h)) fail(h, 'in \\u hexadecimal character escape');
          }
        } else if (!'bfnrt\\/"'.includes(String.fromCharCode(e))) fail(e, 'in string escape code');
      } else if (c < 0x20) fail(c, 'in string literal');
    }
  };
  /** Scans a number whose first byte is `c`; leaves `i` at the byte after it. */
  const number = (c: number): void => {
    if (c === 0x2d) {
      c = next();
      if (!isDigit(c)) fail(c, 'in numeric literal');
    }
    const peek = (): number | undefined => data[i];
    if (c !== 0x30) while (peek() !== undefined && isDigit(peek()!)) i++;
    if (peek() === 0x2e) {
      i++;
      const d = next();
      if (!isDigit(d)) fail(d, 'after decimal point in numeric literal');
      while (peek() !== undefined && isDigit(peek()!)) i++;
    }
    if (peek() === 0x65 || peek() === 0x45) {
      i++;
      let d = next();
      if (d === 0x2b || d === 0x2d) d = next();
      if (!isDigit(d)) fail(d, 'in exponent of numeric literal');
      while (peek() !== undefined && isDigit(peek()!)) i++;
    }
  };
  const value = (c: number, depth: number): void => {
    if (depth > MAX_DEPTH) throw new SyntaxErr('exceeded max depth');
    switch (c) {
      case 0x7b: {
        let k = skip();
        if (k === 0x7d) return;
        for (;;) {
          if (k !== 0x22) fail(k, 'looking for beginning of object key string');
          string();
          const colon = skip();
          if (colon !== 0x3a) fail(colon, 'after object key');
          value(skip(), depth + 1);
          const sep = skip();
          if (sep === 0x7d) return;
          if (sep !== 0x2c) fail(sep, 'after object key:value pair');
          k = skip();
        }
      }
      case 0x5b: {
        let e = skip();
        if (e === 0x5d) return;
        for (;;) {
          value(e, depth + 1);
          const sep = skip();
          if (sep === 0x5d) return;
          if (sep !== 0x2c) fail(sep, 'after array element');
          e = skip();
        }
      }
      case 0x22:
        return string();
      case 0x74:
        return literal('true');
      case 0x66:
        return literal('false');
      case 0x6e:
        return literal('null');
      default:
        if (c === 0x2d || isDigit(c)) return number(c);
        fail(c, 'looking for beginning of value');
    }
  };
  try {
    value(skip(), 1);
    while (i < data.length) {
      const c = data[i++]!;
      if (!isSpace(c)) fail(c, 'after top-level value');
    }
    return undefined;
  } catch (err) {
    if (err instanceof SyntaxErr) return err.message;
    // Nesting deeper than the stack allows is past Go's limit too.
    if (err instanceof RangeError) return 'exceeded max depth';
    throw err;
  }
}
