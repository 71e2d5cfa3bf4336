// One YAML document to a JS value, as kube's YAML-to-JSON conversion does, and the same 400s:
// nesting past MAX_JSON_DEPTH (refused by a linear scan before the parser, whose recursion could
// exhaust the stack), aliases expanding past the yaml package's limit ("billion laughs"), a value
// containing itself. Synchronous and slow per byte (the yaml package composes a whole document
// at once): decode.ts runs it inline only on small bodies and in a worker thread otherwise.

import { parseDocument } from 'yaml';
import { checkJsonShape, MAX_JSON_DEPTH } from './json-value.js';
import { badRequest } from './status-error.js';
import { yamlDepthExceeds } from './yaml-depth.js';

const YAML_MAX_ALIAS_COUNT = 100;

export const yamlTooDeep = () => badRequest(`error converting YAML to JSON: yaml: exceeded max depth of ${MAX_JSON_DEPTH}`);

/** The value and the paths of keys repeated within one mapping; throws a 400 StatusError. */
export function decodeYamlText(text: string): { value: unknown; duplicateFields: string[] } {
  // Before the parser, whose recursion could exhaust the stack on a deep text (and makes a deep
  // flow collection slow to fail): nesting past the limit is refused by a linear scan first.
  if (yamlDepthExceeds(text, MAX_JSON_DEPTH)) throw yamlTooDeep();
  try {
    return decodeWithinLimit(text);
  } catch (err) {
    // Within the limit, the parser's recursive frames (large while V8 has not compiled them yet)
    // can still exhaust the stack near the limit: the same 400, never a 500.
    if (err instanceof RangeError) throw yamlTooDeep();
    throw err;
  }
}

function decodeWithinLimit(text: string): { value: unknown; duplicateFields: string[] } {
  // logLevel 'error': the package would otherwise print a process warning per odd key a client sends.
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false, logLevel: 'error' });
  if (doc.errors.length) {
    const message = doc.errors[0]!.message.split('\n')[0]!;
    // The parser reports running out of stack as a parse error.
    if (/Maximum call stack size exceeded/.test(message)) throw yamlTooDeep();
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
    if (err instanceof RangeError) throw yamlTooDeep();
    throw badRequest(`error converting YAML to JSON: yaml: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  const problem = checkJsonShape(value);
  if (problem?.kind === 'depth') throw yamlTooDeep();
  if (problem?.kind === 'cycle') throw badRequest('error converting YAML to JSON: yaml: anchor value contains itself');
  collectYamlDuplicates(doc.contents, duplicateFields);
  return { value, duplicateFields };
}

type YamlNode = { items?: unknown[]; key?: unknown; value?: unknown } | null | undefined;

/** Keys repeated within one mapping, with their paths, in document order. */
function collectYamlDuplicates(node: unknown, out: string[], path = ''): void {
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
      collectYamlDuplicates(pair.value, out, p);
    } else {
      collectYamlDuplicates(item, out, `${path}[${i}]`);
    }
  });
}
