// What authentication reports for metrics (kube's authentication_attempts and
// authentication_duration_seconds), through an interface auth owns: success (a user), failure
// (no credential anyone understood) or error (a bad credential).

import type { Authenticator } from './authenticator.js';

export type AuthenticationResult = 'success' | 'failure' | 'error';

export interface AuthenticationObserver {
  attempt(result: AuthenticationResult, durationSeconds: number): void;
}

/** The authenticator, reporting every attempt's outcome and duration. */
export function observedAuthenticator(inner: Authenticator, observer: AuthenticationObserver): Authenticator {
  return {
    async authenticate(req) {
      const start = process.hrtime.bigint();
      let result: AuthenticationResult = 'error';
      try {
        const r = await inner.authenticate(req);
        result = r.kind === 'user' ? 'success' : r.kind === 'none' ? 'failure' : 'error';
        return r;
      } finally {
        observer.attempt(result, Number(process.hrtime.bigint() - start) / 1e9);
      }
    },
  };
}
