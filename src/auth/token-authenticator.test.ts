import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTokenFile, TokenAuthenticator, TokenFileError } from './token-authenticator.js';

describe('token file', () => {
  test('kube-apiserver CSV: quoted groups, empty tokens skipped, last duplicate wins', () => {
    const users = parseTokenFile('t1,alice,u1,"devs,qa"\n,ghost,u0\nt2,bob,u2\nt1,alice2,u3\n');
    // kube splits a fourth field on every comma: an empty one is the group "".
    assert.deepEqual(parseTokenFile('t,u,id,\n').get('t')?.groups, ['']);
    assert.deepEqual(parseTokenFile('t,u,id,"a,,b,"\n').get('t')?.groups, ['a', '', 'b', '']);
    assert.deepEqual(users.get('t1'), { username: 'alice2', uid: 'u3', groups: [] });
    assert.deepEqual(users.get('t2'), { username: 'bob', uid: 'u2', groups: [] });
    assert.equal(users.size, 2);
    assert.deepEqual(parseTokenFile('t,u,id,"a,b"').get('t')?.groups, ['a', 'b']);
  });

  test('fewer than three columns fails the load', () => {
    assert.throws(() => parseTokenFile('tok,user\n'), (e: unknown) => e instanceof TokenFileError && e.message === "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2");
  });

  test('authenticates bearer tokens only', async () => {
    const a = new TokenAuthenticator(parseTokenFile('secret,alice,u1,devs'));
    assert.deepEqual(await a.authenticate({ headers: { authorization: 'Bearer secret' } }), { kind: 'user', user: { username: 'alice', uid: 'u1', groups: ['devs'] } });
    assert.deepEqual(await a.authenticate({ headers: { authorization: 'Bearer wrong' } }), { kind: 'none' });
    assert.deepEqual(await a.authenticate({ headers: {} }), { kind: 'none' });
  });
});
