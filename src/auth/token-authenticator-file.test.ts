// --token-auth-file parsing as kube-apiserver reads its CSV (Go's encoding/csv: quotes, "" inside
// them, fields spanning lines, CRLF; no comments and nothing trimmed), its errors in kube's words,
// and bearer-token lookup that hands out copies.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTokenFile, parseTokenFile, TokenAuthenticator, TokenFileError } from './token-authenticator.js';

describe('token file records', () => {
  test('quotes, doubled quotes, blank lines, CRLF; spaces are part of a field', () => {
    const users = parseTokenFile('\r\n t1 , alice , u1 , devs , qa \r\n"t,2","bo""b",u2\r\n"t\r\n3",carol,u3,"a\nb"\n');
    assert.deepEqual([...users.keys()], [' t1 ', 't,2', 't\n3']);
    assert.deepEqual(users.get(' t1 '), { username: ' alice ', uid: ' u1 ', groups: [' devs '] });
    assert.deepEqual(users.get('t,2'), { username: 'bo"b', uid: 'u2', groups: [] });
    assert.deepEqual(users.get('t\n3'), { username: 'carol', uid: 'u3', groups: ['a\nb'] });
  });

  test('a comment line is a record like any other: kube refuses a file with one', () => {
    assert.throws(() => parseTokenFile('# admins\nt1,alice,u1\n', '/etc/tokens.csv'), (e: unknown) => e instanceof TokenFileError && e.message === "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 1");
    // With enough commas it is a user whose token starts with #, as in kube.
    assert.deepEqual(parseTokenFile('#t,u,id\n').get('#t'), { username: 'u', uid: 'id', groups: [] });
  });

  test("malformed quotes fail the load with Go's csv error", () => {
    assert.throws(() => parseTokenFile('ok,a,1\n"open,a,1\n', '/etc/tokens.csv'), (e: unknown) => e instanceof TokenFileError && e.name === 'TokenFileError' && e.message === 'parse error on line 2, column 11: extraneous or missing " in quoted-field');
    assert.throws(() => parseTokenFile('t,a"b,1\n'), { message: 'parse error on line 1, column 4: bare " in non-quoted-field' });
  });

  test('names are the UTF-8 they spell; a token keeps its bytes, as a header value arrives', async () => {
    const users = parseTokenFile(Buffer.from('t\u00e9,Zo\u00eb,u1,\u00e9quipe\n', 'utf8'));
    const token = Buffer.from('t\u00e9', 'utf8').toString('latin1');
    assert.deepEqual(users.get(token), { username: 'Zo\u00eb', uid: 'u1', groups: ['\u00e9quipe'] });
    const answer = await new TokenAuthenticator(users).authenticate({ headers: { authorization: `Bearer ${token}` } });
    assert.equal(answer.kind === 'user' && answer.user.username, 'Zo\u00eb');
  });

  test('loadTokenFile reads the file, naming it in errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-file-'));
    try {
      const path = join(dir, 'tokens.csv');
      writeFileSync(path, 'secret,alice,u1,devs\n');
      assert.deepEqual(loadTokenFile(path).get('secret'), { username: 'alice', uid: 'u1', groups: ['devs'] });
      writeFileSync(path, 'broken\n');
      assert.throws(() => loadTokenFile(path), { message: `token file '${path}' must have at least 3 columns (token, user name, user uid), found 1` });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('TokenAuthenticator', () => {
  const a = new TokenAuthenticator(parseTokenFile('secret,alice,u1,devs'));

  test('the Bearer scheme in any case, with trailing spaces; anything else is not a token', async () => {
    for (const authorization of ['bearer secret', ' BEARER secret  ', 'Bearer secret', 'Bearer secret extra']) {
      assert.equal((await a.authenticate({ headers: { authorization } })).kind, 'user', authorization);
    }
    for (const authorization of ['Basic secret', 'Bearer', 'Bearer  secret', 'Bearersecret', 'xBearer secret']) {
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
