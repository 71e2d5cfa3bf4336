// Impersonation (Impersonate-User, -Group, -Uid, -Extra-<key>): every requested identity part is
// authorized as verb `impersonate` for the real user, then the request acts as the new identity.
// Follows kube-apiserver's impersonation filter, including how groups are completed.

import { internal, type StatusError } from '../apimachinery/status-error.js';
import type { UserInfo } from '../apimachinery/request-context.js';
import type { AuthorizationAttributes, Authorizer } from './authorizer.js';
import { forbiddenError } from './forbidden-error.js';

type Headers = Record<string, string | string[] | undefined>;

const SA_PREFIX = 'system:serviceaccount:';

const values = (h: Headers, name: string): string[] => {
  const v = h[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};

interface Check {
  resource: 'users' | 'serviceaccounts' | 'groups' | 'uids' | 'userextras';
  group: '' | 'authentication.k8s.io';
  name: string;
  namespace?: string;
  subresource?: string;
}

/** An extra's key is %-encoded in its header name; a malformed escape is kept as written (as kube does). */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/**
 * True when the request asks to impersonate anything, as kube reads it: a non-empty user or uid,
 * or any group or extra header at all. A blank Impersonate-User alone asks for nothing.
 */
export function wantsImpersonation(headers: Headers): boolean {
  // Runs on every request: a plain loop, and only names starting with "i" are looked at closer.
  for (const k in headers) {
    if (!Object.hasOwn(headers, k) || (k.charCodeAt(0) | 0x20) !== 0x69) continue;
    const name = k.toLowerCase();
    if (name === 'impersonate-user' || name === 'impersonate-uid') {
      if (values(headers, k).some((x) => x !== '')) return true;
    } else if (name === 'impersonate-group' || name.startsWith('impersonate-extra-')) return true;
  }
  return false;
}

/**
 * Resolves the identity to act as, or throws a StatusError: 403 when the real user may not
 * impersonate a part, 500 (as upstream) for groups, extras or a uid without a user.
 * `headers` are Node's lower-cased request headers with repeated headers kept apart
 * (`req.headersDistinct`), since each Impersonate-Group header is one group.
 */
export async function resolveImpersonation(requestor: UserInfo, headers: Headers, authorizer: Authorizer): Promise<UserInfo> {
  const userName = values(headers, 'impersonate-user')[0];
  const groups = values(headers, 'impersonate-group');
  // As Go's Header.Get: the first value, and an empty one asks for no uid (kube's hasUID).
  const uid = values(headers, 'impersonate-uid')[0] || undefined;
  // No prototype: an extra named `__proto__` or `constructor` is a key like any other.
  const extra = Object.create(null) as Record<string, string[]>;
  for (const [key, raw] of Object.entries(headers)) {
    if (!key.startsWith('impersonate-extra-')) continue;
    const extraKey = unescapeExtraKey(key.slice('impersonate-extra-'.length).toLowerCase());
    extra[extraKey] = [...(extra[extraKey] ?? []), ...values({ [key]: raw }, key)];
  }
  if (userName === undefined || userName === '') {
    throw internal('impersonating groups, extras or a uid requires impersonating a user (Impersonate-User)');
  }

  const checks: Check[] = [];
  const saName = userName.startsWith(SA_PREFIX) ? userName.slice(SA_PREFIX.length).split(':') : undefined;
  const isServiceAccount = saName?.length === 2 && saName.every(Boolean);
  if (isServiceAccount) checks.push({ resource: 'serviceaccounts', group: '', namespace: saName![0], name: saName![1]! });
  else checks.push({ resource: 'users', group: '', name: userName });
  for (const g of groups) checks.push({ resource: 'groups', group: '', name: g });
  for (const [k, vs] of Object.entries(extra)) for (const v of vs) checks.push({ resource: 'userextras', group: 'authentication.k8s.io', name: v, subresource: k });
  if (uid !== undefined) checks.push({ resource: 'uids', group: 'authentication.k8s.io', name: uid });

  for (const check of checks) await authorizeCheck(requestor, check, authorizer);

  const finalGroups = groups.length ? [...groups] : isServiceAccount ? ['system:serviceaccounts', `system:serviceaccounts:${saName![0]}`] : [];
  if (userName === 'system:anonymous') {
    if (!finalGroups.includes('system:unauthenticated')) finalGroups.push('system:unauthenticated');
  } else if (!finalGroups.includes('system:authenticated') && !finalGroups.includes('system:unauthenticated')) {
    finalGroups.push('system:authenticated');
  }
  const user: UserInfo = { username: userName, groups: finalGroups };
  if (uid !== undefined) user.uid = uid;
  // A plain object again (own keys copied as data, `__proto__` included) for everything downstream.
  if (Object.keys(extra).length) user.extra = { ...extra };
  return user;
}

async function authorizeCheck(requestor: UserInfo, check: Check, authorizer: Authorizer): Promise<void> {
  const attrs: AuthorizationAttributes = {
    user: requestor,
    verb: 'impersonate',
    isResourceRequest: true,
    path: '',
    apiGroup: check.group,
    apiVersion: 'v1',
    resource: check.resource,
    subresource: check.subresource ?? '',
    namespace: check.namespace ?? '',
    name: check.name,
  };
  let denial: StatusError | undefined;
  try {
    const r = await authorizer.authorize(attrs);
    if (r.decision !== 'allow') denial = forbiddenError(attrs, r.reason);
  } catch (err) {
    denial = forbiddenError(attrs, err instanceof Error ? err.message : String(err));
  }
  if (denial) throw denial;
}
