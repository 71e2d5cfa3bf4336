// JSON text to a value in one linear pass that gives the event loop a turn every few
// milliseconds (turn-slices.ts), for bodies too large to hand to JSON.parse at once: JSON.parse
// of three megabytes of `{},` or of one object with 200,000 keys holds the loop for a few hundred
// milliseconds. The same pass finds keys repeated within an object (with their paths) and
// refuses nesting past the limit at the bracket that passes it, as scanJsonText does for small
// bodies. Values are what JSON.parse makes (strings with escapes are handed to it, numbers to
// Number, which reads JSON's number grammar exactly as it does); keys are data (`__proto__` is
// an own property like any other). Errors are Go's encoding/json syntax errors, as kube reports
// them ("invalid character 'x' looking for beginning of value", "unexpected end of JSON input").

import { TurnSlices } from './turn-slices.js';

export class JsonTextError extends Error {
  /** Set when the text nests too deeply: the bracket that opened one level too many. */
  readonly tooDeep?: '{' | '[';
  constructor(message: string, tooDeep?: '{' | '[') {
    super(message);
    this.tooDeep = tooDeep;
  }
}

export interface ParsedJson {
  value: unknown;
  /** Paths of keys that appeared more than once in one object, e.g. `metadata.name`. */
  duplicateFields: string[];
}

/** An open object or array; its path is worked out only when a duplicate inside needs it. */
interface Frame {
  obj?: Record<string, unknown>;
  arr?: unknown[];
  parent?: Frame;
  /** Its key in the parent object, or its index in the parent array. */
  at: string | number;
  /** The key whose value is being read (objects). */
  key: string;
  path?: string;
}

/** Steps (values, or 64 Ki string characters) between looks at the clock. */
const STEPS_PER_CHECK = 2048;

/** Go's quoteChar, for the byte Go's scanner would have stopped at. */
function quoteChar(text: string, i: number): string {
  let c = text.codePointAt(i)!;
  // Go reads bytes: a character past ASCII is reported by its first UTF-8 byte.
  if (c >= 0x80) c = c < 0x800 ? 0xc0 | (c >> 6) : c < 0x10000 ? 0xe0 | (c >> 12) : 0xf0 | (c >> 18);
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return '\'"\'';
  const escapes: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\' };
  if (escapes[c]) return `'${escapes[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  if ((c >= 0x80 && c < 0xa0) || c === 0xad) return `'\\u00${c.toString(16)}'`;
  return `'${String.fromCharCode(c)}'`;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

function pathOf(f: Frame | undefined): string {
  if (!f) return '';
  if (f.path === undefined) {
    const parent = f.parent;
    if (!parent) f.path = '';
    else if (typeof f.at === 'number') f.path = `${pathOf(parent)}[${f.at}]`;
    else {
      const p = pathOf(parent);
      f.path = p ? `${p}.${f.at}` : f.at;
    }
  }
  return f.path;
}

function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/**
 * Parses `text` (which must be one JSON value), giving the event loop a turn whenever a slice of
 * work is used up. Throws JsonTextError.
 */
export async function parseJsonText(text: string, maxDepth: number, slices = new TurnSlices()): Promise<ParsedJson> {
  const n = text.length;
  const duplicateFields: string[] = [];
  const stack: Frame[] = [];
  let i = 0;
  let steps = 0;
  const fail = (context: string): never => {
    throw new JsonTextError(i >= n ? 'unexpected end of JSON input' : `invalid character ${quoteChar(text, i)} ${context}`);
  };
  const skipSpace = (): void => {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
  };
  const step = async (): Promise<void> => {
    if (++steps % STEPS_PER_CHECK === 0 && slices.due()) await slices.pause();
  };

  /** A string token at i (its opening quote); i ends past its closing quote. */
  const readString = async (): Promise<string> => {
    const start = i++;
    let escaped = false;
    let sinceCheck = 0;
    for (;;) {
      if (i >= n) fail('in string literal');
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c) {
        escaped = true;
        i++;
        if (i >= n) fail('in string escape code');
        const e = text.charCodeAt(i);
        if (e === 0x75) {
          for (let k = 1; k <= 4; k++) {
            i++;
            if (i >= n) fail('in \\u hexadecimal character escape');
            if (!isHex(text.charCodeAt(i))) fail('in \\u hexadecimal character escape');
          }
        } else if (!(e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74)) fail('in string escape code');
      } else if (c < 0x20) fail('in string literal');
      i++;
      if (++sinceCheck === 65536) {
        sinceCheck = 0;
        await step();
      }
    }
    i++;
    return escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
  };

  const readNumber = (): number => {
    const start = i;
    if (text.charCodeAt(i) === 0x2d) i++;
    if (i >= n) fail('in numeric literal');
    if (text.charCodeAt(i) === 0x30) i++;
    else if (isDigit(text.charCodeAt(i))) while (i < n && isDigit(text.charCodeAt(i))) i++;
    else fail('in numeric literal');
    if (i < n && text.charCodeAt(i) === 0x2e) {
      i++;
      if (i >= n || !isDigit(text.charCodeAt(i))) fail('after decimal point in numeric literal');
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
    if (i < n && (text.charCodeAt(i) | 0x20) === 0x65) {
      i++;
      if (i < n && (text.charCodeAt(i) === 0x2b || text.charCodeAt(i) === 0x2d)) i++;
      if (i >= n || !isDigit(text.charCodeAt(i))) fail('in exponent of numeric literal');
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
    return Number(text.slice(start, i));
  };

  const readLiteral = (word: 'true' | 'false' | 'null', value: unknown): unknown => {
    i++;
    for (let k = 1; k < word.length; k++, i++) {
      if (i >= n || text[i] !== word[k]) fail(`in literal ${word} (expecting '${word[k]}')`);
    }
    return value;
  };

  /** At an object's key (its opening quote expected): reads it and the colon after it. */
  const readKey = async (frame: Frame): Promise<void> => {
    skipSpace();
    if (text.charCodeAt(i) !== 0x22) fail('looking for beginning of object key string');
    const key = await readString();
    skipSpace();
    if (text.charCodeAt(i) !== 0x3a) fail('after object key');
    i++;
    if (Object.hasOwn(frame.obj!, key)) {
      const p = pathOf(frame);
      duplicateFields.push(p ? `${p}.${key}` : key);
    }
    frame.key = key;
  };

  for (;;) {
    // A value starts at i.
    await step();
    skipSpace();
    let value: unknown;
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      if (stack.length >= maxDepth) throw new JsonTextError(`invalid character '${text[i]}' exceeded max depth`, c === 0x7b ? '{' : '[');
      const parent = stack[stack.length - 1];
      const at = parent ? (parent.arr ? parent.arr.length : parent.key) : '';
      i++;
      skipSpace();
      if (c === 0x7b) {
        const frame: Frame = { obj: {}, parent, at, key: '' };
        if (text.charCodeAt(i) !== 0x7d) {
          stack.push(frame);
          await readKey(frame);
          continue;
        }
        i++;
        value = frame.obj;
      } else {
        const frame: Frame = { arr: [], parent, at, key: '' };
        if (text.charCodeAt(i) !== 0x5d) {
          stack.push(frame);
          continue;
        }
        i++;
        value = frame.arr;
      }
    } else if (c === 0x22) value = await readString();
    else if (c === 0x2d || isDigit(c)) value = readNumber();
    else if (c === 0x74) value = readLiteral('true', true);
    else if (c === 0x66) value = readLiteral('false', false);
    else if (c === 0x6e) value = readLiteral('null', null);
    else fail('looking for beginning of value');

    // The value is complete: place it, closing every container it completes.
    for (;;) {
      const top = stack[stack.length - 1];
      skipSpace();
      if (!top) {
        if (i < n) fail('after top-level value');
        return { value, duplicateFields };
      }
      if (top.arr) {
        top.arr.push(value);
        const d = text.charCodeAt(i);
        if (d === 0x2c) {
          i++;
          break;
        }
        if (d !== 0x5d) fail('after array element');
        i++;
        stack.pop();
        value = top.arr;
      } else {
        setKey(top.obj!, top.key, value);
        const d = text.charCodeAt(i);
        if (d === 0x2c) {
          i++;
          await readKey(top);
          break;
        }
        if (d !== 0x7d) fail('after object key:value pair');
        i++;
        stack.pop();
        value = top.obj;
      }
    }
  }
}
