// One JWT issuer as kube-apiserver's JWT authenticator (plugin/pkg/authenticator/token/oidc)
// judges its tokens: a token whose unverified `iss` is not this issuer is not ours ("none");
// one that is must verify (signature by a key of the issuer's JWKS with an allowed asymmetric
// algorithm, `iss` equal to the issuer URL, `aud` containing an accepted audience, `exp` not
// passed, `nbf` at most a minute ahead: go-oidc's leeway) and then map to a user by the claim
// mappings and pass every validation rule, or it is a bad credential (401). Verification is
// jose's, never our own crypto; `alg: none` and HMAC tokens never verify.

import { decodeProtectedHeader, errors, jwtVerify, type CryptoKey, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import type { Logger, UserInfo } from '../../apimachinery/request-context.js';
import type { Authenticator, AuthRequest, AuthResult } from '../authenticator.js';
import { bearerToken } from '../bearer-token.js';
import { tokenDigest, VerifiedTokenCache } from '../verified-token-cache.js';
import { celString, celStringList } from './claims-cel.js';
import { IssuerKeys } from './issuer-keys.js';
import type { CompiledRules, JwtAuthenticatorSpec } from './jwt-config.js';

/** go-oidc's leeway for `nbf`; `exp` has none. */
const NOT_BEFORE_LEEWAY_S = 60;
/** kube caches successful token authentications for 10 s (--token-success-cache-ttl's default). */
const SUCCESS_TTL_MS = 10_000;
const CACHE_ENTRIES = 4096;
/** A request waits this long at most for a key refetch; the fetch itself goes on (up to its 30 s timeout). */
export const REFRESH_WAIT_MS = 5_000;

export interface JwtAuthenticatorObserver {
  /** A token of this issuer was judged (kube's apiserver_authentication_jwt_authenticator_latency_seconds). */
  attempt(issuer: string, result: 'success' | 'failure', seconds: number): void;
  jwksFetch?(issuer: string, ok: boolean): void;
}

export interface JwtAuthenticatorOptions {
  spec: JwtAuthenticatorSpec;
  rules: CompiledRules;
  signingAlgs: readonly string[];
  logger: Logger;
  observer?: JwtAuthenticatorObserver;
  /** An already-running key source to share (a reload that kept the issuer's connection settings). */
  keys?: IssuerKeys;
  initRetryMs?: number;
  minRefreshIntervalMs?: number;
  refreshWaitMs?: number;
}

class TokenRejected extends Error {}


/** The token's `iss`, unverified (kube's untrustedIssuer); undefined when it is no compact JWT. */
export function untrustedIssuer(token: string): string | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || token.trimStart().startsWith('{')) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    // Stryker disable next-line BlockStatement: equivalent, without it the payload is undefined, which names no issuer either
  } catch {
    return undefined;
  }
  // null, numbers, strings and arrays have no `iss`.
  const iss = (payload as { iss?: unknown } | null)?.iss;
  if (typeof iss !== 'string') return undefined;
  return iss === 'accounts.google.com' ? 'https://accounts.google.com' : iss;
}

export class JwtAuthenticator implements Authenticator {
  readonly issuer: string;
  readonly spec: JwtAuthenticatorSpec;
  readonly keys: IssuerKeys;
  private readonly verified = new VerifiedTokenCache({ ttlMs: SUCCESS_TTL_MS, maxEntries: CACHE_ENTRIES });

  constructor(private readonly o: JwtAuthenticatorOptions) {
    this.issuer = o.spec.issuer.url;
    this.spec = o.spec;
    if (o.keys) this.keys = o.keys;
    else {
      this.keys = new IssuerKeys({
        issuerURL: this.issuer,
        discoveryURL: o.spec.issuer.discoveryURL,
        caPem: o.spec.issuer.certificateAuthority,
        logger: o.logger,
        initRetryMs: o.initRetryMs,
        minRefreshIntervalMs: o.minRefreshIntervalMs,
        onFetch: (ok) => o.observer?.jwksFetch?.(this.issuer, ok),
      });
      this.keys.start();
    }
  }

  /** The connection settings its key source depends on (a reload may share the source when they are equal). */
  static keySourceId(spec: JwtAuthenticatorSpec): string {
    return JSON.stringify([spec.issuer.url, spec.issuer.discoveryURL ?? '', spec.issuer.certificateAuthority ?? '']);
  }

  async authenticate(req: AuthRequest): Promise<AuthResult> {
    const token = bearerToken(req);
    if (!token || untrustedIssuer(token) !== this.issuer) return { kind: 'none' };
    return this.authenticateToken(token);
  }

  /** Judges a token already known to name this issuer (its unverified `iss`). */
  async authenticateToken(token: string): Promise<AuthResult> {
    const digest = tokenDigest(token);
    const known = this.verified.get(digest);
    if (known) return { kind: 'user', user: structuredClone(known) };
    const start = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - start) / 1e9;
    try {
      const { user, exp } = await this.judge(token);
      this.o.observer?.attempt(this.issuer, 'success', seconds());
      this.verified.set(digest, structuredClone(user), exp * 1000);
      return { kind: 'user', user };
    } catch (err) {
      this.o.observer?.attempt(this.issuer, 'failure', seconds());
      const message = err instanceof TokenRejected ? err.message : `oidc: verify token: ${(err as Error).message}`;
      return { kind: 'error', message };
    }
  }

  close(): void {
    this.keys.close();
  }

  private async judge(token: string): Promise<{ user: UserInfo; exp: number }> {
    if (!this.keys.ready) throw new TokenRejected('oidc: authenticator not initialized');
    const payload = await this.verify(token);
    const exp = payload.exp!;
    // go-oidc: no leeway for expiry (jose was given the nbf leeway, which it applies to both).
    if (exp < Date.now() / 1000) throw new TokenRejected(`oidc: verify token: oidc: token is expired (Token Expiry: ${new Date(exp * 1000).toISOString()})`);
    const claims = payload as Record<string, unknown>;
    const user: UserInfo = { username: this.username(claims), groups: this.groups(claims) };
    const uid = this.uid(claims);
    if (uid) user.uid = uid;
    const extra = this.extra(claims);
    if (Object.keys(extra).length) user.extra = extra;
    this.checkClaimRules(claims);
    this.checkUserRules(user);
    return { user, exp };
  }

  private async verify(token: string): Promise<JWTPayload> {
    const options = {
      algorithms: [...this.o.signingAlgs],
      issuer: this.issuer,
      audience: this.o.spec.issuer.audiences,
      clockTolerance: NOT_BEFORE_LEEWAY_S,
      requiredClaims: ['exp'],
    };
    try {
      return await verifyWithKeySet(token, this.keys.keys!, options);
    } catch (err) {
      const code = (err as { code?: string }).code;
      // go-oidc fetches the keys again when no cached key verifies the token (rotation).
      if (code === 'ERR_JWKS_NO_MATCHING_KEY' || code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') {
        if (this.algAllowed(token) && (await this.refreshBounded())) return verifyWithKeySet(token, this.keys.keys!, options);
      }
      throw err;
    }
  }

  /** The key refetch, but a slow issuer holds a request for REFRESH_WAIT_MS at most. */
  private refreshBounded(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), this.o.refreshWaitMs ?? REFRESH_WAIT_MS)));
    // Stryker disable next-line ArrowFunction: equivalent, a timer left running resolves a race already settled
    return Promise.race([this.keys.refresh(), waited]).finally(() => clearTimeout(timer));
  }

  /** Tokens with an algorithm we never accept do not make us fetch keys. */
  private algAllowed(token: string): boolean {
    try {
      // Stryker disable next-line StringLiteral: equivalent, only a token whose alg jose accepted reaches here, so alg is never missing
      return this.o.signingAlgs.includes(decodeProtectedHeader(token).alg ?? '');
    } catch {
      return false;
    }
  }

  private username(claims: Record<string, unknown>): string {
    const expr = this.o.rules.username;
    if (expr) {
      const v = expr.evaluate({ claims });
      if (v instanceof Error) throw new TokenRejected(`oidc: error evaluating username claim expression: ${v.message}`);
      const s = celString(v);
      if (s === undefined) throw new TokenRejected('oidc: error evaluating username claim expression: username claim expression must return a string');
      return s;
    }
    const { claim, prefix } = this.o.spec.claimMappings.username;
    const value = claims[claim!];
    if (typeof value !== 'string') throw new TokenRejected(`oidc: parse username claims "${claim}": ${value === undefined ? 'claim not present' : 'claim is not a string'}`);
    if (claim === 'email' && 'email_verified' in claims) {
      // kube: when present, email_verified must be the boolean true.
      if (typeof claims.email_verified !== 'boolean') throw new TokenRejected("oidc: parse 'email_verified' claim: not a boolean");
      if (!claims.email_verified) throw new TokenRejected('oidc: email not verified');
    }
    return prefix ? prefix + value : value;
  }

  private groups(claims: Record<string, unknown>): string[] {
    const { claim, prefix } = this.o.spec.claimMappings.groups;
    if (claim && claim in claims) {
      const v = claims[claim];
      // A single string is one group (kube accepts "role"-style claims).
      const list = typeof v === 'string' ? [v] : Array.isArray(v) && v.every((g) => typeof g === 'string') ? (v as string[]) : undefined;
      if (!list) throw new TokenRejected(`oidc: parse groups claim "${claim}": must be a string or an array of strings`);
      return prefix ? list.map((g) => prefix + g) : [...list];
    }
    const expr = this.o.rules.groups;
    if (!expr) return [];
    const v = expr.evaluate({ claims });
    const list = v instanceof Error ? undefined : celStringList(v);
    if (!list) throw new TokenRejected(`oidc: error evaluating group claim expression: ${v instanceof Error ? v.message : 'expression must return a string or a list of strings'}`);
    return list;
  }

  private uid(claims: Record<string, unknown>): string {
    const claim = this.o.spec.claimMappings.uid.claim;
    if (claim) {
      const v = claims[claim];
      if (typeof v !== 'string') throw new TokenRejected(`oidc: parse uid claim "${claim}": ${v === undefined ? 'claim not present' : 'claim is not a string'}`);
      return v;
    }
    const expr = this.o.rules.uid;
    if (!expr) return '';
    const v = expr.evaluate({ claims });
    if (v instanceof Error) throw new TokenRejected(`oidc: error evaluating uid claim expression: ${v.message}`);
    const s = celString(v);
    if (s === undefined) throw new TokenRejected('oidc: error evaluating uid claim expression: uid claim expression must return a string');
    return s;
  }

  private extra(claims: Record<string, unknown>): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const { key, expression } of this.o.rules.extra) {
      const v = expression.evaluate({ claims });
      const list = v instanceof Error ? undefined : celStringList(v);
      if (!list) throw new TokenRejected(`oidc: error evaluating extra claim expression: ${expression.source}: ${v instanceof Error ? v.message : 'expression must return a string or a list of strings'}`);
      if (list.length) out[key] = list;
    }
    return out;
  }

  private checkClaimRules(claims: Record<string, unknown>): void {
    for (const rule of this.o.spec.claimValidationRules) {
      if (!rule.claim) continue;
      const v = claims[rule.claim];
      if (v === undefined) throw new TokenRejected(`oidc: required claim ${rule.claim} not present in ID token`);
      if (typeof v !== 'string') throw new TokenRejected(`oidc: parse claim ${rule.claim}: not a string`);
      if (v !== (rule.requiredValue ?? '')) throw new TokenRejected(`oidc: required claim ${rule.claim} value does not match. Got = ${v}, want = ${rule.requiredValue ?? ''}`);
    }
    for (const { expression, message } of this.o.rules.claimValidation) {
      const v = expression.evaluate({ claims });
      if (v instanceof Error) throw new TokenRejected(`oidc: error evaluating claim validation expression: ${v.message}`);
      if (typeof v !== 'boolean') throw new TokenRejected('oidc: error evaluating claim validation expression: validation expression must return a boolean');
      if (!v) throw new TokenRejected(`oidc: error evaluating claim validation expression: validation expression '${expression.source}' failed: ${message}`);
    }
  }

  private checkUserRules(user: UserInfo): void {
    if (!this.o.rules.userValidation.length) return;
    // kube's convertUserInfoToUnstructured: every field is present, empty ones as "", [] and {},
    // so a rule may read any of them on a token that maps none.
    const u: Record<string, unknown> = { username: user.username, uid: user.uid ?? '', groups: user.groups, extra: user.extra ?? {} };
    for (const { expression, message } of this.o.rules.userValidation) {
      const v = expression.evaluate({ user: u });
      if (v instanceof Error) throw new TokenRejected(`oidc: error evaluating user info validation rule: ${v.message}`);
      if (typeof v !== 'boolean') throw new TokenRejected('oidc: error evaluating user info validation rule: validation expression must return a boolean');
      if (!v) throw new TokenRejected(`oidc: error evaluating user info validation rule: validation expression '${expression.source}' failed: ${message}`);
    }
  }
}

/**
 * Verifies with a key set. A token without `kid` may be verified by any key of its algorithm
 * (go-oidc tries them all): the first whose signature holds decides; when none does, it is a
 * signature failure, which makes the caller fetch the keys again as for a signed-by-unknown key.
 */
async function verifyWithKeySet(token: string, keySet: JWTVerifyGetKey, options: JWTVerifyOptions): Promise<JWTPayload> {
  try {
    return (await jwtVerify(token, keySet, options)).payload;
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') throw err;
    for await (const key of err as AsyncIterable<CryptoKey>) {
      try {
        return (await jwtVerify(token, key, options)).payload;
      } catch (e) {
        // This key's signature held, so the token's own claims failed: that is the answer.
        if ((e as { code?: string }).code !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') throw e;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}
