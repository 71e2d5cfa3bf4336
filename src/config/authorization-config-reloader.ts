// The authorizer of --authorization-config, re-built when the file changes (kube's reloading
// authorizer): the contents are compared whenever the file follower (file-follow.ts) sees the
// file's directory change, and on its periodic check; a new valid file (its webhooks'
// kubeconfigs loaded) replaces the chain for the next request, while requests under way finish
// with the chain they began with, and the replaced chain's webhook connections are closed as
// those requests end. A broken file keeps the last good chain, is logged once, and
// is reported by health() (the `authorization-config` readiness check) until fixed. Each reload
// is counted as kube counts them (success / failure).

import { readFileSync } from 'node:fs';
import type { Logger } from '../apimachinery/request-context.js';
import type { Authorizer } from '../auth/authorizer.js';
import { parseAuthorizationConfiguration, type AuthorizerSpec } from './authorization-config-file.js';
import { followFiles } from './file-follow.js';

export interface ReloadingAuthorizer {
  authorizer: Authorizer;
  /** '' when the file in force is the one on disk; otherwise why the file on disk is ignored. */
  health(): string;
  close(): void;
}

/** Loads the file now (a broken file at start throws) and follows it. */
export async function loadAuthorizationConfig(o: {
  path: string;
  build: (specs: AuthorizerSpec[]) => Promise<Authorizer & { close(): void }>;
  logger: Logger;
  onReload?: (status: 'success' | 'failure') => void;
  pollMs?: number;
}): Promise<ReloadingAuthorizer> {
  let text = readFileSync(o.path, 'utf8');
  let current = await o.build(await parseAuthorizationConfiguration(text, o.path));
  let problem = '';
  let busy = false;
  /** A change was reported while a reload was being built: look again when it is done. */
  let again = false;
  let closed = false;
  const check = async (): Promise<void> => {
    if (closed) return;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      let next: string;
      try {
        next = readFileSync(o.path, 'utf8');
      } catch (err) {
        // Reported once per disappearance, not on every look.
        if (text !== '') fail(`authorization configuration file ${o.path} is unreadable, keeping the last good configuration: ${(err as Error).message}`);
        text = '';
        return;
      }
      if (next === text) return;
      text = next;
      let built: Authorizer & { close(): void };
      try {
        built = await o.build(await parseAuthorizationConfiguration(next, o.path));
      } catch (err) {
        fail(`authorization configuration file ${o.path} is invalid, keeping the last good configuration: ${(err as Error).message}`);
        return;
      }
      if (closed) return built.close(); // closed while it was being built
      const replaced = current;
      current = built;
      replaced.close();
      problem = '';
      o.onReload?.('success');
      o.logger.info({ path: o.path }, 'authorization configuration reloaded');
    } finally {
      busy = false;
      if (again) {
        again = false;
        void check();
      }
    }
  };
  const fail = (message: string): void => {
    if (message !== problem) o.logger.error({ path: o.path }, message);
    problem = message;
    o.onReload?.('failure');
  };
  const followed = followFiles({ paths: [o.path], onChange: () => void check(), pollMs: o.pollMs });
  return {
    authorizer: {
      authorize: (attrs) => current.authorize(attrs),
      rulesFor: (user, namespace) => current.rulesFor(user, namespace),
    },
    health: () => problem,
    close() {
      closed = true;
      followed.close();
      current.close();
    },
  };
}
