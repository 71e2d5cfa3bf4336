// Re-reads --oidc-ca-file when it changes, so that the CA trusted for the OIDC issuer's HTTPS
// (its discovery document and JWKS) can be rotated without a restart, e.g. when cert-manager
// reissues the issuer's certificate from a new CA and updates the secret this file comes from.
// kube-apiserver 1.33 reads the file once, when it turns the --oidc-* flags into a structured
// JWT authenticator; following it here is ours, done as the serving files are followed
// (file-follow.ts). A new good bundle is used from the issuer's next fetch on (keys already
// fetched stay valid); a broken, empty or unreadable file keeps the last good CA, is logged
// once, and is reported by problem() (the `oidc-ca-file` readiness check) until a good file
// arrives.

import { readFileSync } from 'node:fs';
import type { Logger } from '../apimachinery/request-context.js';
import { followFiles } from './file-follow.js';
import { checkCABundle } from './serving-files.js';

export interface OidcCAFileWatch {
  /** Why the file on disk is being ignored ('' when the CA in use is the file's). */
  problem(): string;
  close(): void;
}

export function watchOidcCAFile(o: {
  path: string;
  /** What was read at start-up (in use now). */
  initial: string;
  /** Installs a new CA bundle for the issuer's next fetch. */
  apply: (pem: string) => void;
  logger: Logger;
  pollMs?: number;
}): OidcCAFileWatch {
  let current = o.initial;
  let problem = '';
  const fail = (why: string): void => {
    const next = `OIDC CA file ${o.path} ${why}; keeping the last good CA`;
    if (next !== problem) o.logger.error({ path: o.path }, next);
    problem = next;
  };
  const check = (): void => {
    let text: string;
    try {
      text = readFileSync(o.path, 'utf8');
    } catch (err) {
      return fail(`is unreadable: ${(err as Error).message}`);
    }
    if (text === current) {
      if (problem) o.logger.info({ path: o.path }, 'OIDC CA file is good again (unchanged from the CA in use)');
      problem = '';
      return;
    }
    try {
      checkCABundle(text);
    } catch (err) {
      return fail(`is not usable: ${(err as Error).message}`);
    }
    o.apply(text);
    current = text;
    problem = '';
    o.logger.info({ path: o.path }, 'loaded a new OIDC CA bundle; the issuer is fetched with it from now on');
  };
  const followed = followFiles({ paths: [o.path], onChange: check, pollMs: o.pollMs });
  return {
    problem: () => problem,
    close: () => followed.close(),
  };
}
