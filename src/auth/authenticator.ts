// Authentication contract: each authenticator looks at a request's credentials and answers
// "this user", "not mine" (no credentials it understands) or throws on a bad credential.

import type { UserInfo } from '../apimachinery/request-context.js';

export interface AuthRequest {
  headers: Record<string, string | string[] | undefined>;
  /** The TLS client certificate, when one was presented, and whether it verified against the client CA. */
  clientCertificate?: { der: Buffer; verified: boolean; error?: string };
}

export type AuthResult = { kind: 'user'; user: UserInfo } | { kind: 'none' } | { kind: 'error'; message: string };

export interface Authenticator {
  authenticate(req: AuthRequest): Promise<AuthResult>;
}

/** Tries each authenticator in order; the first user or error wins. Adds `system:authenticated`. */
export function unionAuthenticator(authenticators: readonly Authenticator[]): Authenticator {
  return {
    async authenticate(req) {
      for (const a of authenticators) {
        const r = await a.authenticate(req);
        if (r.kind === 'user') {
          const groups = r.user.groups.includes('system:authenticated') ? r.user.groups : [...r.user.groups, 'system:authenticated'];
          return { kind: 'user', user: { ...r.user, groups } };
        }
        if (r.kind === 'error') return r;
      }
      return { kind: 'none' };
    },
  };
}
