// Go's strconv.Quote (what `%q` and `%#v` print for a string), which kube's messages use to show a
// value: printable characters as they are (Unicode letters, marks, numbers, punctuation, symbols
// and the ASCII space, as unicode.IsPrint), `\"` and `\\`, the C escapes \a \b \f \n \r \t \v,
// other ASCII controls as \xNN, and any other character as \uNNNN or \UNNNNNNNN (lowercase hex).
// JSON quoting differs for exactly those (\u001b for \x1b, a raw U+2028, U+00A0 or U+FEFF).

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const C_ESCAPES: Readonly<Record<string, string>> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\' };
/** Strings made only of these need no look at each character. */
const PLAIN = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

export function goQuote(s: string): string {
  if (PLAIN.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const escaped = C_ESCAPES[ch];
    if (escaped) out += escaped;
    else if (PRINTABLE.test(ch)) out += ch;
    else {
      const cp = ch.codePointAt(0)!;
      if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
      else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
      else out += `\\U${cp.toString(16).padStart(8, '0')}`;
    }
  }
  return `${out}"`;
}
