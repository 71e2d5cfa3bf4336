import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTokenFile, TokenAuthenticator, TokenFileError } from './token-authenticator.js';

describe('token file', () => {
  test('kube-apiserver CSV: quoted groups, empty tokens skipped, last duplicate wins', () => {
    const users = parseTokenFile('t1,alice,u1,"devs,qa"\n,ghost,u0\nt2,bob,u2\nt1,alice2,u3\n');
    assert.deepEqual(users.get('t1'), { username: 'alice2', uid: 'u3', groups: [] });
    assert.deepEqual(users.get('t2'), { username: 'bob', uid: 'u2', groups: [] });
    assert.equal(users.size, 2);
    assert.deepEqual(parseTokenFile('t,u,id,"a,b"').get('t')?.groups, ['a', 'b']);
  });

  test('fewer than three columns fails the load', () => {
    assert.throws(() => parseTokenFile('tok,user\n'), (e: unknown) => e instanceof TokenFileError && /line 1: expected at least 3 columns/.test(e.message));
  });

  test('authenticates bearer tokens only', async () => {
    const a = new TokenAuthenticator(parseTokenFile('secret,alice,u1,devs'));
    assert.deepEqual(await a.authenticate({ headers: { authorization: 'Bearer secret' } }), { kind: 'user', user: { username: 'alice', uid: 'u1', groups: ['devs'] } });
    assert.deepEqual(await a.authenticate({ headers: { authorization: 'Bearer wrong' } }), { kind: 'none' });
    assert.deepEqual(await a.authenticate({ headers: {} }), { kind: 'none' });
  });
});
