// --token-auth-file parsing as kube-apiserver reads its CSV (quotes, "" inside them, comments,
// blank lines, CRLF, spaces around fields, group lists), its errors with file and line, and
// bearer-token lookup that hands out copies.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTokenFile, parseTokenFile, TokenAuthenticator, TokenFileError } from './token-authenticator.js';

describe('token file records', () => {
  test('quotes, doubled quotes, spaces, comments, blank lines and CRLF', () => {
    const users = parseTokenFile('# admins\r\n\r\n  \r\n t1 , alice , u1 , " devs , qa ,, "\r\n"t,2","bo""b",u2\r\n   # indented comment\r\n');
    assert.deepEqual([...users.keys()], ['t1', 't,2']);
    assert.deepEqual(users.get('t1'), { username: 'alice', uid: 'u1', groups: ['devs', 'qa'] });
    assert.deepEqual(users.get('t,2'), { username: 'bo"b', uid: 'u2', groups: [] });
  });

  test('errors name the file and the line', () => {
    assert.throws(() => parseTokenFile('ok,a,1\n"open,a,1\n', '/etc/tokens.csv'), (e: unknown) => e instanceof TokenFileError && e.name === 'TokenFileError' && e.message === '/etc/tokens.csv line 2: unterminated quoted field');
    assert.throws(() => parseTokenFile('ok,a,1\n\nx,y\n'), (e: unknown) => e instanceof TokenFileError && e.message === 'token file line 3: expected at least 3 columns (token,user,uid), found 2');
  });

  test('loadTokenFile reads the file, naming it in errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-file-'));
    try {
      const path = join(dir, 'tokens.csv');
      writeFileSync(path, 'secret,alice,u1,devs\n');
      assert.deepEqual(loadTokenFile(path).get('secret'), { username: 'alice', uid: 'u1', groups: ['devs'] });
      writeFileSync(path, 'broken\n');
      assert.throws(() => loadTokenFile(path), { message: `${path} line 1: expected at least 3 columns (token,user,uid), found 1` });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('TokenAuthenticator', () => {
  const a = new TokenAuthenticator(parseTokenFile('secret,alice,u1,devs'));

  test('the Bearer scheme in any case, with trailing spaces; anything else is not a token', async () => {
    for (const authorization of ['bearer secret', 'BEARER   secret  ', 'Bearer secret']) {
      assert.equal((await a.authenticate({ headers: { authorization } })).kind, 'user', authorization);
    }
    for (const authorization of ['Basic secret', 'Bearer', 'Bearer secret extra', 'Bearersecret', 'xBearer secret']) {
      assert.deepEqual(await a.authenticate({ headers: { authorization } }), { kind: 'none' }, authorization);
    }
    assert.equal((await a.authenticate({ headers: { authorization: ['Bearer secret', 'Bearer other'] } })).kind, 'user');
  });

  test('each answer is a copy: changing its groups changes nothing stored', async () => {
    const first = await a.authenticate({ headers: { authorization: 'Bearer secret' } });
    if (first.kind === 'user') first.user.groups.push('system:masters');
    const again = await a.authenticate({ headers: { authorization: 'Bearer secret' } });
    assert.deepEqual(again.kind === 'user' && again.user.groups, ['devs']);
  });
});
