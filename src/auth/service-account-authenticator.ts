// Service-account JWTs (--service-account-key-file, --service-account-issuer, --api-audiences):
// the signature against the configured public keys, issuer, audience, expiry and not-before,
// then kube's mapping: user system:serviceaccount:<ns>:<name>, groups system:serviceaccounts and
// system:serviceaccounts:<ns>, bound pod and token id in extra. Signature checks use jose.
// There are no ServiceAccount objects here, so a token is not checked against a live account.
// A verified token is trusted again for a few seconds (verified-token-cache.ts), never past its
// own expiry (with the same clock tolerance the check allows), so a client sending one token on
// every request pays for one signature check.

import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeJwt, jwtVerify, type JWTPayload } from 'jose';
import type { UserInfo } from '../apimachinery/request-context.js';
import type { Authenticator, AuthRequest, AuthResult } from './authenticator.js';
import { bearerToken } from './bearer-token.js';
import { tokenDigest, VerifiedTokenCache } from './verified-token-cache.js';

/** Seconds a token is accepted past its exp (and before its nbf), for clock skew. */
const CLOCK_TOLERANCE_S = 60;
/** How long a verified token is trusted without a new signature check. */
export const VERIFIED_TOKEN_TTL_MS = 10_000;
const VERIFIED_TOKEN_ENTRIES = 4096;

export interface ServiceAccountTokenOptions {
  keys: KeyObject[];
  issuers: string[];
  audiences: string[];
  /** Clock for the verified-token cache (tests). */
  now?: () => number;
}

/** Public keys from PEM files; private keys and certificates are accepted too (their public half is used). */
export function loadServiceAccountKeys(files: readonly string[]): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const file of files) {
    const blocks = readFileSync(file, 'utf8').match(/-----BEGIN [^-]+-----[\s\S]*?-----END [^-]+-----/g) ?? [];
    for (const block of blocks) keys.push(createPublicKey(block));
    if (blocks.length === 0) throw new Error(`${file}: no PEM keys found`);
  }
  return keys;
}

interface KubernetesClaims {
  namespace?: string;
  serviceaccount?: { name?: string; uid?: string };
  pod?: { name?: string; uid?: string };
}


export class ServiceAccountAuthenticator implements Authenticator {
  private readonly verified: VerifiedTokenCache;

  constructor(private readonly opts: ServiceAccountTokenOptions) {
    this.verified = new VerifiedTokenCache({ ttlMs: VERIFIED_TOKEN_TTL_MS, maxEntries: VERIFIED_TOKEN_ENTRIES, now: opts.now });
  }

  async authenticate(req: AuthRequest): Promise<AuthResult> {
    const token = bearerToken(req);
    if (!token) return { kind: 'none' };
    // Stryker disable next-line ConditionalExpression: equivalent, decodeJwt below refuses every token this lets through (the check saves a digest)
    if (token.split('.').length !== 3) return { kind: 'none' };
    const digest = tokenDigest(token);
    const known = this.verified.get(digest);
    // A copy: callers add groups to what they get.
    if (known) return { kind: 'user', user: structuredClone(known) };
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return { kind: 'none' };
    }
    // Only tokens from our issuers are ours to judge; anything else is some other authenticator's.
    if (typeof unverified.iss !== 'string' || !this.opts.issuers.includes(unverified.iss)) return { kind: 'none' };
    const payload = await this.verify(token);
    if (!payload) return { kind: 'error', message: 'invalid bearer token' };
    const user = userFromClaims(payload);
    if (!user) return { kind: 'error', message: 'service account token has no valid kubernetes.io claims' };
    // Trusted until it would fail the check (exp plus the tolerance); without exp, the TTL alone.
    const validUntil = typeof payload.exp === 'number' ? (payload.exp + CLOCK_TOLERANCE_S) * 1000 : Infinity;
    this.verified.set(digest, structuredClone(user), validUntil);
    return { kind: 'user', user };
  }

  private async verify(token: string): Promise<JWTPayload | undefined> {
    for (const key of this.opts.keys) {
      try {
        const { payload } = await jwtVerify(token, key, { issuer: this.opts.issuers, audience: this.opts.audiences, clockTolerance: CLOCK_TOLERANCE_S });
        return payload;
      } catch {
        // Try the next key; a token fails only when no key accepts it.
      }
    }
    return undefined;
  }
}

function userFromClaims(payload: JWTPayload): UserInfo | undefined {
  const k = payload['kubernetes.io'] as KubernetesClaims | undefined;
  const namespace = k?.namespace;
  const name = k?.serviceaccount?.name;
  if (!namespace || !name) return undefined;
  const username = `system:serviceaccount:${namespace}:${name}`;
  if (payload.sub !== username) return undefined;
  const extra: Record<string, string[]> = {};
  if (k.pod?.name) extra['authentication.kubernetes.io/pod-name'] = [k.pod.name];
  if (k.pod?.uid) extra['authentication.kubernetes.io/pod-uid'] = [k.pod.uid];
  if (payload.jti) extra['authentication.kubernetes.io/credential-id'] = [`JTI=${payload.jti}`];
  const user: UserInfo = { username, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] };
  if (k.serviceaccount?.uid) user.uid = k.serviceaccount.uid;
  if (Object.keys(extra).length) user.extra = extra;
  return user;
}
