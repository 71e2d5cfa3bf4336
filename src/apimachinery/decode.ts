// Request bodies to JS values: JSON (reporting duplicate object keys, which JSON.parse silently
// collapses) and YAML (one document). Malformed input is a 400 in kube's words.

import { parseDocument } from 'yaml';
import { badRequest } from './status-error.js';

export type BodyFormat = 'json' | 'yaml';

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
  return { value, duplicateFields: findDuplicateKeys(text) };
}

function decodeYaml(text: string): DecodedBody {
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
  if (doc.errors.length) throw badRequest(`error converting YAML to JSON: yaml: ${doc.errors[0]!.message.split('\n')[0]}`);
  const duplicateFields: string[] = [];
  const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
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

/** One pass over valid JSON text, tracking the key path, to find keys repeated within an object. */
function findDuplicateKeys(text: string): string[] {
  const out: string[] = [];
  const stack: { keys: Set<string> | undefined; path: string; index: number }[] = [];
  let pendingKey: string | undefined;
  let i = 0;
  const childPath = (): string => {
    const top = stack[stack.length - 1];
    if (!top) return '';
    if (top.keys) return top.path ? `${top.path}.${pendingKey}` : pendingKey ?? '';
    return `${top.path}[${top.index}]`;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const str = JSON.parse(text.slice(i, j + 1)) as string;
      i = j + 1;
      const top = stack[stack.length - 1];
      let k = i;
      while (/\s/.test(text[k] ?? '')) k++;
      if (top?.keys && text[k] === ':') {
        if (top.keys.has(str)) out.push(top.path ? `${top.path}.${str}` : str);
        top.keys.add(str);
        pendingKey = str;
      }
      continue;
    }
    if (c === '{' || c === '[') {
      const path = childPath();
      stack.push({ keys: c === '{' ? new Set() : undefined, path, index: 0 });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top && !top.keys) top.index++;
    }
    i++;
  }
  return out;
}
