import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenDigest, VerifiedTokenCache } from './verified-token-cache.js';

const alice = { username: 'alice', groups: ['devs'] };

describe('verified token cache', () => {
  test('trusts a token for the TTL or until it expires, whichever comes first', () => {
    let now = 1_000_000;
    const cache = new VerifiedTokenCache({ ttlMs: 10_000, maxEntries: 10, now: () => now });
    cache.set(tokenDigest('long-lived'), alice, now + 3_600_000);
    cache.set(tokenDigest('expiring'), alice, now + 2_000);
    cache.set(tokenDigest('expired'), alice, now - 1);
    assert.deepEqual(cache.get(tokenDigest('long-lived')), alice);
    assert.deepEqual(cache.get(tokenDigest('expiring')), alice);
    assert.equal(cache.get(tokenDigest('expired')), undefined, 'an already expired token is not kept');
    now += 2_000;
    assert.equal(cache.get(tokenDigest('expiring')), undefined, 'never past its own expiry');
    assert.deepEqual(cache.get(tokenDigest('long-lived')), alice);
    now += 8_000;
    assert.equal(cache.get(tokenDigest('long-lived')), undefined, 'checked again after the TTL');
    assert.equal(cache.size, 0);
  });

  test('holds at most maxEntries, dropping the oldest', () => {
    const cache = new VerifiedTokenCache({ ttlMs: 10_000, maxEntries: 3 });
    for (const t of ['a', 'b', 'c', 'd']) cache.set(tokenDigest(t), { username: t, groups: [] }, Infinity);
    assert.equal(cache.size, 3);
    assert.equal(cache.get(tokenDigest('a')), undefined);
    assert.equal(cache.get(tokenDigest('d'))?.username, 'd');
  });

  test('keys are digests: the token itself is not what it stores', () => {
    assert.notEqual(tokenDigest('secret'), 'secret');
    assert.equal(tokenDigest('secret'), tokenDigest('secret'));
    assert.notEqual(tokenDigest('secret'), tokenDigest('secreT'));
  });
});
