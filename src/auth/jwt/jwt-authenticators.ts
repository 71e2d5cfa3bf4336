// The JWT authenticators, from the --oidc-* flags (one) or --authentication-config (several), as
// one authenticator: the one whose issuer a token names judges it (kube's fail-on-error union;
// issuers are unique, so at most one claims a token). With a file, the file is re-read when the
// caller's change source (the composition root's file follower) says it may have changed and its
// contents differ: a valid new file replaces the authenticators (an issuer whose URL, discovery
// URL and CA are unchanged keeps its fetched keys); a broken one keeps the last good set, is
// logged and counted, and reported by health() until fixed, as the RBAC policy file is.

import type { FileChanges } from '../file-changes.js';
import { readFileSync } from 'node:fs';
import type { Logger } from '../../apimachinery/request-context.js';
import type { Authenticator, AuthRequest, AuthResult } from '../authenticator.js';
import { parseAuthenticationConfig, type LoadedJwtAuthenticator } from './authentication-config-file.js';
import { bearerToken } from '../bearer-token.js';
import { JwtAuthenticator, untrustedIssuer, type JwtAuthenticatorObserver } from './jwt-authenticator.js';
import { ALL_SIGNING_ALGS } from './jwt-config.js';

export interface AuthenticationConfigObserver extends JwtAuthenticatorObserver {
  /** kube's apiserver_authentication_config_controller_automatic_reload* metrics. */
  configReload?(result: 'success' | 'failure'): void;
}

export interface JwtSetOptions {
  logger: Logger;
  observer?: AuthenticationConfigObserver;
  /** --oidc-signing-algs for the flags; every valid algorithm for a file (as kube). */
  signingAlgs?: readonly string[];
  initRetryMs?: number;
  minRefreshIntervalMs?: number;
}

export class JwtAuthenticators implements Authenticator {
  /** The authenticators by issuer URL (in the configuration's order): a token's `iss` is decoded once, not once per issuer. */
  private byIssuer = new Map<string, JwtAuthenticator>();

  constructor(private readonly o: JwtSetOptions, loaded: readonly LoadedJwtAuthenticator[]) {
    this.replace(loaded);
  }

  async authenticate(req: AuthRequest): Promise<AuthResult> {
    const token = bearerToken(req);
    const issuer = token ? untrustedIssuer(token) : undefined;
    const a = issuer === undefined ? undefined : this.byIssuer.get(issuer);
    return a ? a.authenticateToken(token!) : { kind: 'none' };
  }

  get issuers(): string[] {
    return [...this.byIssuer.keys()];
  }

  /** Swaps in authenticators for `loaded`, reusing the key source of each unchanged issuer. */
  replace(loaded: readonly LoadedJwtAuthenticator[]): void {
    const current = [...this.byIssuer.values()];
    const previous = new Map(current.map((a) => [JwtAuthenticator.keySourceId(a.spec), a]));
    const next = loaded.map(
      ({ spec, rules }) =>
        new JwtAuthenticator({
          spec,
          rules,
          signingAlgs: this.o.signingAlgs ?? ALL_SIGNING_ALGS,
          logger: this.o.logger,
          observer: this.o.observer,
          keys: previous.get(JwtAuthenticator.keySourceId(spec))?.keys,
          initRetryMs: this.o.initRetryMs,
          minRefreshIntervalMs: this.o.minRefreshIntervalMs,
        }),
    );
    const kept = new Set(next.map((a) => a.keys));
    for (const old of current) if (!kept.has(old.keys)) old.close();
    this.byIssuer = new Map(next.map((a) => [a.issuer, a]));
  }

  /**
   * --oidc-ca-file changed: the issuer's next discovery or JWKS fetch trusts `pem`; the keys it
   * already fetched stay valid. (A configuration file carries its CA inline and is reloaded whole.)
   */
  setCertificateAuthority(pem: string): void {
    for (const a of this.byIssuer.values()) a.keys.setCertificateAuthority(pem);
  }

  close(): void {
    for (const a of this.byIssuer.values()) a.close();
    this.byIssuer = new Map();
  }
}


export interface AuthenticationConfigSource {
  authenticator: JwtAuthenticators;
  /** '' while the file in force is the file on disk; otherwise why the file on disk is ignored. */
  health(): string;
  close(): void;
}

/**
 * Loads --authentication-config now (a broken file at start-up throws: the server does not
 * start) and re-reads it whenever `changes` calls. Contents, not modification times, decide
 * whether it changed (a ConfigMap's atomic symlink swap keeps old timestamps).
 */
export function loadAuthenticationConfigSource(path: string, disallowedIssuers: readonly string[], o: JwtSetOptions & { changes: FileChanges }): AuthenticationConfigSource {
  /** The contents last looked at; undefined while the file is unreadable. */
  let lastText: string | undefined = readFileSync(path, 'utf8');
  const authenticator = new JwtAuthenticators(o, parseAuthenticationConfig(lastText, disallowedIssuers));
  let problem = '';
  const onChange = (): void => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      // Logged and counted once per disappearance, not on every look (an invalid file before it was counted already).
      if (lastText !== undefined) {
        problem = `authentication configuration file ${path} is unreadable, keeping the last good configuration: ${(err as Error).message}`;
        o.logger.error({ path }, problem);
        o.observer?.configReload?.('failure');
      }
      lastText = undefined;
      return;
    }
    if (text === lastText) return;
    lastText = text;
    try {
      authenticator.replace(parseAuthenticationConfig(text, disallowedIssuers));
      o.logger.info({ path, issuers: authenticator.issuers }, problem ? 'authentication configuration file is valid again; reloaded' : 'authentication configuration file reloaded');
      problem = '';
      o.observer?.configReload?.('success');
    } catch (err) {
      problem = `authentication configuration file ${path} is invalid, keeping the last good configuration: ${(err as Error).message}`;
      o.logger.error({ path }, problem);
      o.observer?.configReload?.('failure');
    }
  };
  const followed = o.changes(onChange);
  return {
    authenticator,
    health: () => problem,
    close() {
      followed.close();
      authenticator.close();
    },
  };
}
