// Request bodies to JS values: JSON (reporting duplicate object keys, which JSON.parse silently
// collapses) and YAML (one document). Malformed input is a 400 in kube's words, and so is input
// built to exhaust the server: nesting deeper than MAX_JSON_DEPTH, YAML aliases expanding
// beyond what the document holds ("billion laughs"), a YAML value containing itself.

import { parseDocument } from 'yaml';
import { checkJsonShape, MAX_JSON_DEPTH } from './json-value.js';
import { badRequest } from './status-error.js';
import { yamlDepthExceeds } from './yaml-depth.js';

export type BodyFormat = 'json' | 'yaml';

const YAML_MAX_ALIAS_COUNT = 100;

export interface DecodedBody {
  value: unknown;
  /** Paths of keys that appeared more than once in one object, e.g. `metadata.name`. */
  duplicateFields: string[];
}

export function decodeBody(bytes: Uint8Array, format: BodyFormat): DecodedBody {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return format === 'yaml' ? decodeYaml(text) : decodeJson(text);
}

function decodeJson(text: string): DecodedBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw badRequest(`couldn't get version/kind; json parse error: ${err instanceof Error ? err.message : String(err)}`);
  }
  // The text's brackets are the value's nesting (JSON.parse makes no shared or cyclic nodes), so
  // one scan of the text finds both an excess depth and the repeated keys.
  const scan = scanJsonText(text, MAX_JSON_DEPTH);
  // Go's scanner words it so: the bracket that opened one level too many.
  if (scan.tooDeep) throw badRequest(`couldn't get version/kind; json parse error: invalid character '${scan.tooDeep}' exceeded max depth`);
  return { value, duplicateFields: scan.duplicateFields };
}

const tooDeep = () => badRequest(`error converting YAML to JSON: yaml: exceeded max depth of ${MAX_JSON_DEPTH}`);

function decodeYaml(text: string): DecodedBody {
  // Before the parser, whose recursion could exhaust the stack on a deep text (and makes a deep
  // flow collection slow to fail): nesting past the limit is refused by a linear scan first.
  if (yamlDepthExceeds(text, MAX_JSON_DEPTH)) throw tooDeep();
  try {
    return decodeYamlWithinLimit(text);
  } catch (err) {
    // Within the limit, the parser's recursive frames (large while V8 has not compiled them yet)
    // can still exhaust the stack near the limit: the same 400, never a 500.
    if (err instanceof RangeError) throw tooDeep();
    throw err;
  }
}

function decodeYamlWithinLimit(text: string): DecodedBody {
  // logLevel 'error': the package would otherwise print a process warning per odd key a client sends.
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false, logLevel: 'error' });
  if (doc.errors.length) {
    const message = doc.errors[0]!.message.split('\n')[0]!;
    // The parser reports running out of stack as a parse error.
    if (/Maximum call stack size exceeded/.test(message)) throw tooDeep();
    throw badRequest(`error converting YAML to JSON: yaml: ${message}`);
  }
  const duplicateFields: string[] = [];
  let value: unknown;
  try {
    // The yaml package's guard against alias expansion, at its default (as go-yaml's, a ratio of
    // expanded to written nodes); a document past it is refused in go-yaml's words.
    value = doc.toJS({ maxAliasCount: YAML_MAX_ALIAS_COUNT }) as unknown;
  } catch (err) {
    if (err instanceof ReferenceError && /alias/i.test(err.message)) throw badRequest('error converting YAML to JSON: yaml: document contains excessive aliasing');
    if (err instanceof RangeError) throw tooDeep();
    throw badRequest(`error converting YAML to JSON: yaml: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  const problem = checkJsonShape(value);
  if (problem?.kind === 'depth') throw tooDeep();
  if (problem?.kind === 'cycle') throw badRequest('error converting YAML to JSON: yaml: anchor value contains itself');
  collectYamlDuplicates(doc.contents, '', duplicateFields);
  return { value, duplicateFields };
}

type YamlNode = { items?: unknown[]; key?: unknown; value?: unknown } | null | undefined;

function collectYamlDuplicates(node: unknown, path: string, out: string[]): void {
  const n = node as YamlNode;
  if (!n || !Array.isArray(n.items)) return;
  const seen = new Set<string>();
  n.items.forEach((item, i) => {
    const pair = item as { key?: { value?: unknown }; value?: unknown } | undefined;
    if (pair && 'key' in pair) {
      const key = String(pair.key?.value ?? pair.key);
      const p = path ? `${path}.${key}` : key;
      if (seen.has(key)) out.push(p);
      seen.add(key);
      collectYamlDuplicates(pair.value, p, out);
    } else {
      collectYamlDuplicates(item, `${path}[${i}]`, out);
    }
  });
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
