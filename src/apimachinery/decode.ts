// Request bodies to JS values: JSON (reporting duplicate object keys, which JSON.parse silently
// collapses) and YAML (one document). Malformed input is a 400 in kube's words, and so is input
// built to exhaust the server: nesting deeper than MAX_JSON_DEPTH, YAML aliases expanding
// beyond what the document holds ("billion laughs"), a YAML value containing itself.
//
// Decoding is linear in the body and never holds the event loop for more than a few
// milliseconds: a small body is decoded at once; a larger JSON body is read in slices that give
// the loop a turn between them (json-text.ts), and a larger YAML body is decoded on a thread of
// its own (yaml-decoders.ts) and comes back as JSON text read in slices.

import { JsonTextError, parseJsonText } from './json-text.js';
import { MAX_JSON_DEPTH } from './json-value.js';
import { badRequest } from './status-error.js';
import { decodeYamlOffThread } from './yaml-decoders.js';
import { decodeYamlText } from './yaml-text.js';

export type BodyFormat = 'json' | 'yaml';

export interface DecodedBody {
  value: unknown;
  /** Paths of keys that appeared more than once in one object, e.g. `metadata.name`. */
  duplicateFields: string[];
}

/**
 * Bodies decoded at once. JSON.parse and the scan take about a millisecond for 16 KiB of the
 * worst shapes (thousands of empty objects); the yaml package is a hundred times slower per byte
 * on its worst shapes (a flow sequence of one-character items), a millisecond or two for 1 KiB.
 */
const INLINE_JSON_CHARS = 16 * 1024;
const INLINE_YAML_CHARS = 1024;

export interface DecodeOptions {
  /** The request: a body still being decoded when its signal aborts stops being decoded (read only then). */
  context?: { readonly signal: AbortSignal };
}

export async function decodeBody(bytes: Uint8Array, format: BodyFormat, opts: DecodeOptions = {}): Promise<DecodedBody> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (format === 'yaml') return decodeYaml(text, opts.context);
  try {
    return await parseJson(text);
  } catch (err) {
    if (err instanceof JsonTextError) throw badRequest(`couldn't get version/kind; json parse error: ${err.message}`);
    throw err;
  }
}

/**
 * JSON text to a value and its repeated keys; throws JsonTextError in Go's words (kube's),
 * e.g. "invalid character '}' looking for beginning of value", or "invalid character '{'
 * exceeded max depth" for the bracket that opened one level too many.
 */
export async function parseJson(text: string): Promise<DecodedBody> {
  if (text.length > INLINE_JSON_CHARS) return parseJsonText(text, MAX_JSON_DEPTH);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // The same text through the slower reader, for Go's words (it throws: the text is not JSON).
    await parseJsonText(text, MAX_JSON_DEPTH);
    throw new JsonTextError((err as Error).message);
  }
  // The text's brackets are the value's nesting (JSON.parse makes no shared or cyclic nodes), so
  // one scan of the text finds both an excess depth and the repeated keys.
  const scan = scanJsonText(text, MAX_JSON_DEPTH);
  if (scan.tooDeep) throw new JsonTextError(`invalid character '${scan.tooDeep}' exceeded max depth`, scan.tooDeep);
  return { value, duplicateFields: scan.duplicateFields };
}

async function decodeYaml(text: string, context: DecodeOptions['context']): Promise<DecodedBody> {
  if (text.length <= INLINE_YAML_CHARS) return decodeYamlText(text);
  const answer = await decodeYamlOffThread(text, context?.signal);
  if ('error' in answer) throw badRequest(answer.error);
  if ('value' in answer) return { value: answer.value, duplicateFields: answer.duplicateFields };
  // The thread checked the depth; the JSON text it made has no repeated keys of its own.
  const { value } = await parseJsonText(answer.json, MAX_JSON_DEPTH);
  return { value, duplicateFields: answer.duplicateFields };
}

/** JSON's whitespace: between the tokens of valid JSON text nothing else can appear. */
const isJsonSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** One pass over valid JSON text, tracking the key path, to find keys repeated within an object. */
export function findDuplicateKeys(text: string): string[] {
  return scanJsonText(text, Number.POSITIVE_INFINITY).duplicateFields;
}

/**
 * One pass over valid JSON text: keys repeated within an object (with their paths), and the
 * first bracket (in text order, so the first node in depth-first order) nested deeper than
 * `maxDepth`, where the scan stops. Runs on every JSON body, so it reads char codes and only
 * decodes strings that are keys (and only those with escapes through JSON.parse).
 */
function scanJsonText(text: string, maxDepth: number): { duplicateFields: string[]; tooDeep?: '{' | '[' } {
  const out: string[] = [];
  const stack: { keys: Set<string> | undefined; path: string; index: number }[] = [];
  let pendingKey = '';
  let i = 0;
  const n = text.length;
  const childPath = (): string => {
    const top = stack[stack.length - 1];
    if (!top) return '';
    if (top.keys) return top.path ? `${top.path}.${pendingKey}` : pendingKey;
    return `${top.path}[${top.index}]`;
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let j = i + 1;
      let escaped = false;
      for (let d = text.charCodeAt(j); d !== 0x22; d = text.charCodeAt(j)) {
        if (d === 0x5c) {
          escaped = true;
          j += 2;
        } else j++;
      }
      const top = stack[stack.length - 1];
      if (top?.keys) {
        let k = j + 1;
        while (isJsonSpace(text.charCodeAt(k))) k++;
        if (text.charCodeAt(k) === 0x3a) {
          const key = escaped ? (JSON.parse(text.slice(i, j + 1)) as string) : text.slice(i + 1, j);
          if (top.keys.has(key)) out.push(top.path ? `${top.path}.${key}` : key);
          top.keys.add(key);
          pendingKey = key;
        }
      }
      i = j + 1;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      if (stack.length >= maxDepth) return { duplicateFields: out, tooDeep: c === 0x7b ? '{' : '[' };
      const path = childPath();
      stack.push({ keys: c === 0x7b ? new Set() : undefined, path, index: 0 });
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
    } else if (c === 0x2c) {
      const top = stack[stack.length - 1];
      if (top && !top.keys) top.index++;
    }
    i++;
  }
  return { duplicateFields: out };
}
