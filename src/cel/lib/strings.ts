// cel-go's strings extension at version 2, as Kubernetes enables it: charAt, indexOf,
// lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim, join, quote, format.
// Indexes count code points (Go runes). Costs are Kubernetes' CostEstimator's.

import { fn, method, type Overload } from '../functions.js';
import { T } from '../types.js';
import { CelError, CelMap, Duration, Timestamp, TypeValue, Uint, codePoints, isList, type CelResult, type CelValue } from '../values.js';
import { STRING_TRAVERSAL_FACTOR, traversal } from './cost.js';
import { formatDouble } from './go-format.js';
import { formatDuration, formatTimestamp } from './time.js';

const runes = (s: string): string[] => Array.from(s);
const outOfRange = (i: bigint | number): CelError => new CelError(`index out of range: ${i}`);

function charAt(s: string, i: bigint): CelResult {
  const r = runes(s);
  if (i < 0n || i > BigInt(r.length)) return outOfRange(i);
  return r[Number(i)] ?? '';
}

function indexOf(s: string, sub: string, offset = 0n): CelResult {
  if (sub === '') return offset;
  const r = runes(s);
  const sr = runes(sub);
  if (offset < 0n || offset >= BigInt(r.length)) return outOfRange(offset);
  for (let i = Number(offset); i < r.length - (sr.length - 1); i++) {
    if (sr.every((c, j) => r[i + j] === c)) return BigInt(i);
  }
  return -1n;
}

function lastIndexOf(s: string, sub: string, offset?: bigint): CelResult {
  const r = runes(s);
  if (offset === undefined) {
    if (sub === '') return BigInt(r.length);
    offset = BigInt(r.length - 1);
  }
  if (sub === '') return offset;
  const sr = runes(sub);
  if (offset < 0n || offset >= BigInt(r.length)) return outOfRange(offset);
  let i = Number(offset);
  if (i > r.length - sr.length) i = r.length - sr.length;
  for (; i >= 0; i--) {
    if (sr.every((c, j) => r[i + j] === c)) return BigInt(i);
  }
  return -1n;
}

function substring(s: string, start: bigint, end?: bigint): CelResult {
  const r = runes(s);
  const e = end ?? BigInt(r.length);
  if (start < 0n || start > BigInt(r.length)) return outOfRange(start);
  if (e < 0n || e > BigInt(r.length)) return outOfRange(e);
  if (start > e) return new CelError(`invalid substring range. start: ${start}, end: ${e}`);
  return r.slice(Number(start), Number(e)).join('');
}

/** Go's strings.Replace(s, old, new, n); n < 0 replaces all. */
function replace(s: string, from: string, to: string, n = -1n): CelResult {
  if (n === 0n || from === to) return s;
  if (from === '') {
    const r = runes(s);
    const out: string[] = [];
    let done = 0n;
    for (let i = 0; i <= r.length; i++) {
      if (n < 0n || done < n) {
        out.push(to);
        done++;
      }
      if (i < r.length) out.push(r[i]!);
    }
    return out.join('');
  }
  let out = '';
  let rest = s;
  let done = 0n;
  for (;;) {
    const at = rest.indexOf(from);
    if (at < 0 || (n >= 0n && done >= n)) return out + rest;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
    done++;
  }
}

/** Go's strings.SplitN(s, sep, n). */
function split(s: string, sep: string, n = -1n): CelResult {
  if (n === 0n) return [];
  if (sep === '') {
    const r = runes(s);
    if (n < 0n || BigInt(r.length) <= n) return r;
    return [...r.slice(0, Number(n) - 1), r.slice(Number(n) - 1).join('')];
  }
  const parts = s.split(sep);
  if (n < 0n || BigInt(parts.length) <= n) return parts;
  return [...parts.slice(0, Number(n) - 1), parts.slice(Number(n) - 1).join(sep)];
}

/** Go's unicode.IsSpace. */
const SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;
const trim = (s: string): string => s.replace(SPACE, '');

const asciiLower = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const asciiUpper = (s: string): string => s.replace(/[a-z]/g, (c) => c.toUpperCase());

function join(list: readonly CelValue[], sep = ''): CelResult {
  if (!list.every((x) => typeof x === 'string')) return new CelError('no such overload');
  return (list as string[]).join(sep);
}

/** strings.quote: a CEL string literal for `s`. */
function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    switch (ch) {
      case '\x07':
        out += '\\a';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\v':
        out += '\\v';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '"':
        out += '\\"';
        break;
      default:
        out += ch;
    }
  }
  return `${out}"`;
}

/** The text `%s` gives a value in format(). */
function formatValue(v: CelValue): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint) return v.value.toString();
  if (typeof v === 'number') return formatDouble(v);
  if (typeof v === 'boolean') return String(v);
  if (v === null) return 'null';
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (v instanceof Timestamp) return formatTimestamp(v);
  if (v instanceof Duration) return formatDuration(v);
  if (v instanceof TypeValue) return v.name;
  if (isList(v)) return `[${v.map(formatValue).join(', ')}]`;
  if (v instanceof CelMap) return `{${[...v].map(([k, x]) => `${formatValue(k as CelValue)}: ${formatValue(x)}`).join(', ')}}`;
  return String(v);
}

/** strings.format: %s %d %f %e %b %o %x %X and %%, with an optional precision for floats. */
function format(tmpl: string, args: readonly CelValue[]): CelResult {
  let out = '';
  let next = 0;
  for (let i = 0; i < tmpl.length; i++) {
    const c = tmpl[i]!;
    if (c !== '%') {
      out += c;
      continue;
    }
    const m = /^(?:\.(\d+))?([sdfeboxX%])/.exec(tmpl.slice(i + 1));
    if (!m) return new CelError(`could not parse formatting clause: unrecognized formatting clause "${tmpl[i + 1] ?? ''}"`);
    i += m[0].length;
    const verb = m[2]!;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (next >= args.length) return new CelError(`index ${next} out of range`);
    const v = args[next++]!;
    const prec = m[1] === undefined ? undefined : Number(m[1]);
    const num = typeof v === 'bigint' ? v : v instanceof Uint ? v.value : undefined;
    switch (verb) {
      case 's':
        out += formatValue(v);
        break;
      case 'd':
        if (num === undefined) return new CelError('decimal clause can only be used on integers, was given ' + typeLabel(v));
        out += num.toString();
        break;
      case 'f':
      case 'e': {
        const d = typeof v === 'number' ? v : num !== undefined ? Number(num) : undefined;
        if (d === undefined) return new CelError(`fixed-point clause can only be used on doubles, was given ${typeLabel(v)}`);
        out += verb === 'f' ? d.toFixed(prec ?? 6) : d.toExponential(prec ?? 6).replace(/e([+-])(\d)$/, 'e$10$2');
        break;
      }
      case 'b':
      case 'o':
      case 'x':
      case 'X': {
        const radix = verb === 'b' ? 2 : verb === 'o' ? 8 : 16;
        let text: string;
        if (num !== undefined) text = num.toString(radix);
        else if (typeof v === 'string') text = Buffer.from(v, 'utf8').toString('hex');
        else if (v instanceof Uint8Array) text = Buffer.from(v).toString('hex');
        else return new CelError(`only integers, byte buffers, and strings can be formatted as hex, was given ${typeLabel(v)}`);
        out += verb === 'X' ? text.toUpperCase() : text;
        break;
      }
    }
  }
  return out;
}

const typeLabel = (v: CelValue): string => (typeof v === 'number' ? 'double' : typeof v === 'string' ? 'string' : typeof v);

const traverse = (args: readonly CelValue[]): number => traversal(args[0]!);
const traverseTwice = (args: readonly CelValue[]): number => Math.ceil(codePoints(args[0] as string) * 2 * STRING_TRAVERSAL_FACTOR);

export const stringsOverloads: Overload[] = [
  method('string_char_at_int', 'charAt', [T.string, T.int], T.string, charAt),
  method('string_index_of_string', 'indexOf', [T.string, T.string], T.int, (s: string, sub: string) => indexOf(s, sub), traverse),
  method('string_index_of_string_int', 'indexOf', [T.string, T.string, T.int], T.int, indexOf, traverse),
  method('string_last_index_of_string', 'lastIndexOf', [T.string, T.string], T.int, (s: string, sub: string) => lastIndexOf(s, sub), traverse),
  method('string_last_index_of_string_int', 'lastIndexOf', [T.string, T.string, T.int], T.int, lastIndexOf, traverse),
  method('string_lower_ascii', 'lowerAscii', [T.string], T.string, asciiLower, traverse),
  method('string_upper_ascii', 'upperAscii', [T.string], T.string, asciiUpper, traverse),
  method('string_replace_string_string', 'replace', [T.string, T.string, T.string], T.string, (s: string, a: string, b: string) => replace(s, a, b), traverseTwice),
  method('string_replace_string_string_int', 'replace', [T.string, T.string, T.string, T.int], T.string, replace, traverseTwice),
  method('string_split_string', 'split', [T.string, T.string], T.list(T.string), (s: string, sep: string) => split(s, sep), traverseTwice),
  method('string_split_string_int', 'split', [T.string, T.string, T.int], T.list(T.string), split, traverseTwice),
  method('string_substring_int', 'substring', [T.string, T.int], T.string, (s: string, a: bigint) => substring(s, a), traverse),
  method('string_substring_int_int', 'substring', [T.string, T.int, T.int], T.string, substring, traverse),
  method('string_trim', 'trim', [T.string], T.string, trim, traverse),
  method('list_join', 'join', [T.list(T.string)], T.string, (l: readonly CelValue[]) => join(l), (_args, result) => Math.ceil(codePoints(typeof result === 'string' ? result : '') * 2 * STRING_TRAVERSAL_FACTOR)),
  method('list_join_string', 'join', [T.list(T.string), T.string], T.string, join, (_args, result) => Math.ceil(codePoints(typeof result === 'string' ? result : '') * 2 * STRING_TRAVERSAL_FACTOR)),
  fn('strings_quote', 'strings.quote', [T.string], T.string, quote),
  method('string_format', 'format', [T.string, T.list(T.dyn)], T.string, format),
];
