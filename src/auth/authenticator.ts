// Authentication contract: each authenticator looks at a request's credentials and answers
// "this user", "not mine" (no credentials it understands) or "error" for a bad credential.

import type { UserInfo } from '../apimachinery/request-context.js';

export interface AuthRequest {
  headers: Record<string, string | string[] | undefined>;
  /**
   * The TLS client certificate, when one was presented: its DER first, then the certificates the
   * client sent with it (intermediates). Verified by the authenticator, per request.
   */
  clientCertificate?: { chain: Buffer[] };
}

export type AuthResult = { kind: 'user'; user: UserInfo } | { kind: 'none' } | { kind: 'error'; message: string };

export interface Authenticator {
  authenticate(req: AuthRequest): Promise<AuthResult>;
}

/**
 * Tries each authenticator in order (kube's union, not fail-on-error): the first user wins, so a
 * token one authenticator rejects may still be known to a later one (a JWT whose issuer the
 * token webhook also serves); with no user, the first error is the answer. Adds
 * `system:authenticated`.
 */
export function unionAuthenticator(authenticators: readonly Authenticator[]): Authenticator {
  return {
    async authenticate(req) {
      let error: AuthResult | undefined;
      for (const a of authenticators) {
        const r = await a.authenticate(req);
        if (r.kind === 'user') {
          const groups = r.user.groups.includes('system:authenticated') ? r.user.groups : [...r.user.groups, 'system:authenticated'];
          return { kind: 'user', user: { ...r.user, groups } };
        }
        if (r.kind === 'error') error ??= r;
      }
      return error ?? { kind: 'none' };
    },
  };
}
