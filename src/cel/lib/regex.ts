// Kubernetes' regex library: find and findAll with RE2 semantics (re2js), as Go's regexp finds
// (leftmost-first; findAll skips an empty match that abuts the previous match).

import { RE2JS } from 're2js';
import { method, type Overload } from '../functions.js';
import { T } from '../types.js';
import { CelError, type CelResult } from '../values.js';
import { regexCost } from './cost.js';
import { compilePattern } from './core.js';

const illegal = (p: CelError): CelError => new CelError(`Illegal regex: ${p.message}`);

function find(s: string, re: string): CelResult {
  const p = compilePattern(re);
  if (p instanceof CelError) return illegal(p);
  const m = p.matcher(s);
  return m.find() ? (m.group() ?? '') : '';
}

function findAll(s: string, re: string, n = -1n): CelResult {
  const p = compilePattern(re);
  if (p instanceof CelError) return illegal(p);
  return findAllMatches(p, s, n);
}

function findAllMatches(p: RE2JS, s: string, n: bigint): string[] {
  const out: string[] = [];
  if (n === 0n) return out;
  const m = p.matcher(s);
  let prevEnd = -1;
  while (m.find()) {
    const start = m.start();
    const end = m.end();
    // Go: "empty matches abutting a preceding match are ignored".
    if (start === end && start === prevEnd) continue;
    out.push(m.group() ?? '');
    prevEnd = end;
    if (n > 0n && BigInt(out.length) >= n) break;
  }
  return out;
}

const cost = (args: readonly unknown[]): number => regexCost(args[0] as string, args[1] as string);

export const regexOverloads: Overload[] = [
  method('string_find_string', 'find', [T.string, T.string], T.string, find, cost),
  method('string_find_all_string', 'findAll', [T.string, T.string], T.list(T.string), (s: string, re: string) => findAll(s, re), cost),
  method('string_find_all_string_int', 'findAll', [T.string, T.string, T.int], T.list(T.string), findAll, cost),
];
