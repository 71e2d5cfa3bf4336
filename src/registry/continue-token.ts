// List continue tokens in kube-apiserver's shape: base64 of {"v":"meta.k8s.io/v1","rv":N,"start":"<next key>"}.
// The start key is the last returned key (relative to the resource prefix) plus "\0", as upstream.

import { badRequest } from '../apimachinery/status-error.js';

export interface ContinuePosition {
  /** Clamped to Number.MAX_SAFE_INTEGER when larger (see resource-version.ts); `exactRevision` is the value. */
  revision: number;
  exactRevision: bigint;
  /** Continue with keys strictly after this one (relative to the prefix). */
  after: string;
}

export function encodeContinue(revision: number, lastKeySuffix: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: revision, start: `${lastKeySuffix}\u0000` })).toString('base64url');
}

export function decodeContinue(token: string): ContinuePosition {
  let parsed: unknown;
  let text: string;
  try {
    text = Buffer.from(token, 'base64url').toString('utf8');
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('continue key is not valid: illegal base64 data or JSON in continue token');
  }
  const p = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (p?.v !== 'meta.k8s.io/v1') throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof p.rv !== 'number' || !Number.isInteger(p.rv) || p.rv <= 0) throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  // A namespaced kind's key past its prefix is `<namespace>/<name>`: a clean relative path (no
  // empty, `.` or `..` segment: kube's path.Clean check) can only name keys under the prefix.
  if (typeof p.start !== 'string' || p.start === '' || p.start.split('/').some((seg) => seg === '' || seg === '.' || seg === '..')) {
    throw badRequest('continue key is not valid: encoded start key must be a relative key');
  }
  // JSON.parse rounds integers above 2^53: read such a revision's digits from the text itself.
  const digits = Number.isSafeInteger(p.rv) ? undefined : /"rv"\s*:\s*([0-9]+)/.exec(text)?.[1];
  const exactRevision = digits ? BigInt(digits) : BigInt(p.rv);
  const revision = Number.isSafeInteger(p.rv) ? p.rv : Number.MAX_SAFE_INTEGER;
  return { revision, exactRevision, after: p.start.endsWith('\u0000') ? p.start.slice(0, -1) : p.start };
}
