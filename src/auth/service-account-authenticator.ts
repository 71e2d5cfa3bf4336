// Service-account JWTs (--service-account-key-file, --service-account-issuer, --api-audiences):
// the signature against the configured public keys, issuer, audience, expiry and not-before,
// then kube's mapping: user system:serviceaccount:<ns>:<name>, groups system:serviceaccounts and
// system:serviceaccounts:<ns>, bound pod and token id in extra. Signature checks use jose.
// There are no ServiceAccount objects here, so a token is not checked against a live account.

import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeJwt, jwtVerify, type JWTPayload } from 'jose';
import type { UserInfo } from '../apimachinery/request-context.js';
import type { Authenticator, AuthRequest, AuthResult } from './authenticator.js';

export interface ServiceAccountTokenOptions {
  keys: KeyObject[];
  issuers: string[];
  audiences: string[];
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

const bearer = (req: AuthRequest): string | undefined => {
  const h = req.headers.authorization;
  return /^Bearer\s+(\S+)\s*$/i.exec((Array.isArray(h) ? h[0] : h) ?? '')?.[1];
};

export class ServiceAccountAuthenticator implements Authenticator {
  constructor(private readonly opts: ServiceAccountTokenOptions) {}

  async authenticate(req: AuthRequest): Promise<AuthResult> {
    const token = bearer(req);
    if (!token || token.split('.').length !== 3) return { kind: 'none' };
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
    return user ? { kind: 'user', user } : { kind: 'error', message: 'service account token has no valid kubernetes.io claims' };
  }

  private async verify(token: string): Promise<JWTPayload | undefined> {
    for (const key of this.opts.keys) {
      try {
        const { payload } = await jwtVerify(token, key, { issuer: this.opts.issuers, audience: this.opts.audiences, clockTolerance: 60 });
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
