// What must hold for any request, whatever it holds: the answer is a 2xx or a Status-shaped
// 4xx (a 504 only for kube's "too large resource version"), never a stack trace; a non-2xx (or
// dry-run) answer leaves the stored state as it was; a 2xx write reports what is now stored;
// and this process's prototypes are untouched (the server runs in it).

import { isDeepStrictEqual } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { CTB, SC, type FuzzRequest } from './arbitraries.js';
import type { FuzzResponse } from './client.js';

const PROTO_KEYS = Object.getOwnPropertyNames(Object.prototype).sort().join();
const OBJECT_KEYS = Object.getOwnPropertyNames(Object).sort().join();
const ARRAY_PROTO_KEYS = Object.getOwnPropertyNames(Array.prototype).sort().join();

export function prototypeProblems(): string[] {
  const out: string[] = [];
  const probe: Record<string, unknown> = {};
  for (const k of ['name', 'x', 'polluted', 'kind', 'metadata']) if (probe[k] !== undefined) out.push(`({}).${k} is ${String(probe[k])}`);
  if (Object.getOwnPropertyNames(Object.prototype).sort().join() !== PROTO_KEYS) out.push('Object.prototype gained or lost members');
  if (Object.getOwnPropertyNames(Object).sort().join() !== OBJECT_KEYS) out.push('Object gained or lost members');
  if (Object.getOwnPropertyNames(Array.prototype).sort().join() !== ARRAY_PROTO_KEYS) out.push('Array.prototype gained or lost members');
  if (typeof Object.assign !== 'function' || typeof Object.prototype.hasOwnProperty !== 'function') out.push('Object members replaced');
  return out;
}

const collectionOf = (path: string): string => (path.startsWith(CTB) ? CTB : SC);

function statusProblems(res: FuzzResponse): string[] {
  const out: string[] = [];
  const s = res.json;
  if (!s || typeof s !== 'object') return [`a ${res.status} answer that is not JSON: ${res.text.slice(0, 200)}`];
  if (s.kind !== 'Status' || s.apiVersion !== 'v1' || s.status !== 'Failure') out.push(`a ${res.status} answer that is not a Status: ${res.text.slice(0, 200)}`);
  if (s.code !== res.status) out.push(`Status code ${s.code} differs from the HTTP status ${res.status}`);
  if (typeof s.message !== 'string') out.push('a Status without a message');
  if (/\n\s+at /.test(res.text)) out.push('a stack trace in the answer');
  return out;
}

/**
 * kube-apiserver 1.33 answers 500 to impersonated groups, extras or a uid without an impersonated
 * user, and so do we (a deliberate match): the one 5xx a request can earn.
 */
const isImpersonationWithoutUser = (req: FuzzRequest, res: FuzzResponse): boolean => {
  const names = Object.keys(req.headers).map((h) => h.toLowerCase());
  // HTTP trims header values: a blank Impersonate-User is none.
  const user = Object.entries(req.headers).find(([h]) => h.toLowerCase() === 'impersonate-user')?.[1]?.trim();
  return (
    res.status === 500 &&
    res.json?.reason === 'InternalError' &&
    !user &&
    names.some((h) => h === 'impersonate-group' || h === 'impersonate-uid' || h.startsWith('impersonate-extra-'))
  );
};

const isTooLargeVersion = (res: FuzzResponse): boolean => res.status === 504 && res.json?.reason === 'Timeout' && res.json?.details?.causes?.[0]?.reason === 'ResourceVersionTooLarge';

/** The answer's object (JSON or YAML), or undefined. */
function answerObject(res: FuzzResponse): any {
  if (res.json !== undefined) return res.json;
  try {
    return parseYaml(res.text);
  } catch {
    return undefined;
  }
}

function sameVersions(before: Map<string, any>, after: Map<string, any>, except: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  for (const [k, v] of before) {
    if (except.has(k)) continue;
    const now = after.get(k);
    if (!now) out.push(`${k} disappeared`);
    else if (now.metadata.resourceVersion !== v.metadata.resourceVersion) out.push(`${k} changed (${v.metadata.resourceVersion} → ${now.metadata.resourceVersion})`);
  }
  for (const k of after.keys()) if (!before.has(k) && !except.has(k)) out.push(`${k} appeared`);
  return out;
}

/**
 * Whether the request is a dry run. A DELETE with a body takes its options from the body alone
 * (kube ignores the query then), so `?dryRun=All` beside a body without dryRun deletes for real.
 */
function isDryRun(req: FuzzRequest, query: URLSearchParams): boolean {
  const body = req.body === undefined ? '' : Buffer.from(req.body, 'base64').toString('utf8');
  if (req.method !== 'DELETE' || body.trim() === '') return query.get('dryRun') === 'All';
  try {
    const options = JSON.parse(body) as { dryRun?: unknown };
    return Array.isArray(options?.dryRun) && options.dryRun.includes('All');
  } catch {
    return false;
  }
}

export function checkExchange(req: FuzzRequest, res: FuzzResponse, before: Map<string, any>, after: Map<string, any>): string[] {
  const problems = [...prototypeProblems()];
  const ok = res.status >= 200 && res.status < 300;
  if (!ok && !(res.status >= 400 && res.status < 500) && !isTooLargeVersion(res) && !isImpersonationWithoutUser(req, res)) problems.push(`answered ${res.status}: ${res.text.slice(0, 300)}`);
  if (!ok) problems.push(...statusProblems(res));
  const query = new URL(req.path, 'https://x').searchParams;
  const write = req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH' || req.method === 'DELETE';
  // A collection delete deletes item by item and stops at the first failure, as kube's does:
  // items deleted before it stay deleted, so a failure may follow some deletions.
  const collectionDelete = req.method === 'DELETE' && (req.path.split('?')[0] === SC || req.path.split('?')[0] === CTB);
  if (!write || (!ok && !collectionDelete) || isDryRun(req, query)) {
    problems.push(...sameVersions(before, after).map((p) => `${ok ? 'a read or dry run' : `a ${res.status} answer`} left a write behind: ${p}`));
    return problems;
  }
  const collection = collectionOf(req.path);
  const obj = answerObject(res);
  if (req.method === 'DELETE') {
    // One object (or a collection): each changed object is gone, or terminating.
    const changed = new Set([...before.keys()].filter((k) => after.get(k)?.metadata.resourceVersion !== before.get(k).metadata.resourceVersion));
    for (const k of changed) {
      const now = after.get(k);
      if (now && !now.metadata.deletionTimestamp) problems.push(`a delete changed ${k} without marking it deleted`);
    }
    problems.push(...sameVersions(before, after, changed));
    if (obj?.kind && obj.kind !== 'Status' && !obj.kind.endsWith('List')) {
      const now = after.get(`${collection}/${obj.metadata?.name}`);
      if (now && !isDeepStrictEqual(now, obj)) problems.push(`the delete answer differs from what is stored for ${obj.metadata?.name}`);
    }
    return problems;
  }
  const name = obj?.metadata?.name;
  if (typeof name !== 'string') return [...problems, `a ${res.status} write answer without an object: ${res.text.slice(0, 200)}`];
  const key = `${collection}/${name}`;
  const stored = after.get(key);
  // A write that removes the last finalizer of an object being deleted deletes it (answered with its last state).
  const finished = Boolean(obj.metadata.deletionTimestamp) && !(obj.metadata.finalizers?.length > 0);
  if (!stored && !finished) problems.push(`${key} was answered ${res.status} but is not stored`);
  else if (stored && !isDeepStrictEqual(stored, obj)) problems.push(`${key} is stored differently than answered:\n  answered ${JSON.stringify(obj)}\n  stored   ${JSON.stringify(stored)}`);
  problems.push(...sameVersions(before, after, new Set([key])).map((p) => `a write to ${key} also changed: ${p}`));
  return problems;
}
