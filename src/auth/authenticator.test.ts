// The authenticator union (kube's union, not fail-on-error): the first user wins, an error is
// the answer only when no authenticator knows the user, and every user is system:authenticated.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unionAuthenticator, type Authenticator, type AuthResult } from './authenticator.js';

const answering = (result: AuthResult, calls: string[], name: string): Authenticator => ({
  async authenticate() {
    calls.push(name);
    return result;
  },
});

test('the first user wins; later authenticators are not asked', async () => {
  const calls: string[] = [];
  const r = await unionAuthenticator([
    answering({ kind: 'none' }, calls, 'a'),
    answering({ kind: 'error', message: 'bad token' }, calls, 'b'),
    answering({ kind: 'user', user: { username: 'alice', groups: ['devs'] } }, calls, 'c'),
    answering({ kind: 'user', user: { username: 'bob', groups: [] } }, calls, 'd'),
  ]).authenticate({ headers: {} });
  assert.deepEqual(r, { kind: 'user', user: { username: 'alice', groups: ['devs', 'system:authenticated'] } });
  assert.deepEqual(calls, ['a', 'b', 'c']);
});

test('system:authenticated is added once, never twice', async () => {
  const r = await unionAuthenticator([answering({ kind: 'user', user: { username: 'a', groups: ['system:authenticated', 'x'] } }, [], 'a')]).authenticate({ headers: {} });
  assert.deepEqual(r, { kind: 'user', user: { username: 'a', groups: ['system:authenticated', 'x'] } });
});

test('with no user, the first error is the answer; with neither, none', async () => {
  const calls: string[] = [];
  const errors = await unionAuthenticator([
    answering({ kind: 'error', message: 'first' }, calls, 'a'),
    answering({ kind: 'none' }, calls, 'b'),
    answering({ kind: 'error', message: 'second' }, calls, 'c'),
  ]).authenticate({ headers: {} });
  assert.deepEqual(errors, { kind: 'error', message: 'first' });
  assert.deepEqual(calls, ['a', 'b', 'c']);
  assert.deepEqual(await unionAuthenticator([answering({ kind: 'none' }, [], 'a')]).authenticate({ headers: {} }), { kind: 'none' });
  assert.deepEqual(await unionAuthenticator([]).authenticate({ headers: {} }), { kind: 'none' });
});

test('an error after a none is still the answer: "not mine" is no error', async () => {
  const r = await unionAuthenticator([answering({ kind: 'none' }, [], 'a'), answering({ kind: 'error', message: 'bad token' }, [], 'b')]).authenticate({ headers: {} });
  assert.deepEqual(r, { kind: 'error', message: 'bad token' });
});
