// Recently verified bearer tokens, so a client sending the same service-account JWT on every
// request pays for one signature check, not one per request (kube caches token reviews too).
// Keyed by the token's SHA-256, never the token itself; only successes are kept, and each for at
// most `ttlMs` and never past the moment the token itself stops being valid; bounded in size
// (the oldest entry goes first). A failure is never cached: a bad token is checked every time.

import { hash } from 'node:crypto';
import type { UserInfo } from '../apimachinery/request-context.js';

export interface VerifiedTokenCacheOptions {
  /** How long a verified token is trusted without checking it again. */
  ttlMs: number;
  /** Entries at most. */
  maxEntries: number;
  now?: () => number;
}

interface Entry {
  user: UserInfo;
  until: number;
}

/** A token's SHA-256 (crypto.hash: one call, no Hash object: this runs on every request). */
export const tokenDigest = (token: string): string => hash('sha256', token, 'base64');

export class VerifiedTokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;

  constructor(private readonly opts: VerifiedTokenCacheOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** The user a still-trusted verification of this token (by digest) established; undefined otherwise. */
  get(digest: string): UserInfo | undefined {
    const e = this.entries.get(digest);
    if (!e) return undefined;
    if (this.now() < e.until) return e.user;
    this.entries.delete(digest);
    return undefined;
  }

  /** Remembers a verified token until `validUntil` (ms since the epoch) or the TTL, whichever is first. */
  set(digest: string, user: UserInfo, validUntil: number): void {
    const until = Math.min(this.now() + this.opts.ttlMs, validUntil);
    if (until <= this.now()) return;
    this.entries.delete(digest);
    this.entries.set(digest, { user, until });
    while (this.entries.size > this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}
