// --authentication-config followed as it changes: every failure (invalid, then unreadable) is
// logged and counted once, and a good file afterwards is a success with the readiness problem gone.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadAuthenticationConfigSource } from './jwt-authenticators.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A change source that calls every 10 ms (the server's is the file follower; contents decide either way). */
const everyTenMs = (onChange: () => void) => {
  const t = setInterval(onChange, 10);
  return { close: () => clearInterval(t) };
};
const GOOD = 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt: []\n';

test('an invalid file, then a missing one, then a good one: each change logged and counted once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-authn-config-'));
  const path = join(dir, 'authn.yaml');
  writeFileSync(path, GOOD);
  const reloads: string[] = [];
  const errors: string[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(JSON.parse(line).msg) });
  const source = loadAuthenticationConfigSource(path, [], { logger, observer: { attempt: () => {}, configReload: (r) => reloads.push(r) }, changes: everyTenMs });
  // Each step waits until the poll has seen it (bounded), then a few more polls that must change nothing.
  const settle = async (done: () => boolean) => {
    for (let i = 0; i < 500 && !done(); i++) await sleep(10);
    await sleep(100);
  };
  try {
    writeFileSync(path, `${GOOD}bogus: 1\n`);
    await settle(() => reloads.length >= 1);
    assert.deepEqual(reloads, ['failure']);
    assert.match(source.health(), /is invalid, keeping the last good configuration: strict decoding error: unknown field "bogus"/);
    unlinkSync(path);
    await settle(() => reloads.length >= 2);
    assert.deepEqual(reloads, ['failure', 'failure']);
    assert.match(source.health(), /is unreadable, keeping the last good configuration: ENOENT/);
    assert.equal(errors.length, 2);
    assert.match(errors[1]!, /is unreadable/);
    writeFileSync(path, GOOD);
    await settle(() => reloads.length >= 3);
    assert.deepEqual(reloads, ['failure', 'failure', 'success']);
    assert.equal(source.health(), '');
  } finally {
    source.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a token goes to the authenticator of the issuer it names, a token naming no configured issuer is not ours", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-authn-config-'));
  const path = join(dir, 'authn.yaml');
  // Issuers on a closed loopback port: never ready, so a token that reaches one is told so.
  const issuer = (port: number) => `- issuer: {url: "https://127.0.0.1:${port}", audiences: [x]}\n  claimMappings: {username: {claim: sub, prefix: ""}}\n`;
  writeFileSync(path, `${GOOD.replace('jwt: []\n', 'jwt:\n')}${issuer(1)}${issuer(2)}`);
  const source = loadAuthenticationConfigSource(path, [], { logger: pino({ level: 'silent' }), initRetryMs: 60_000, changes: () => ({ close: () => {} }) });
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const bearer = (iss: string) => ({ headers: { authorization: `Bearer ${b64({ alg: 'RS256' })}.${b64({ iss, sub: 'a' })}.c2ln` } });
  try {
    assert.deepEqual(source.authenticator.issuers, ['https://127.0.0.1:1', 'https://127.0.0.1:2']);
    for (const iss of ['https://127.0.0.1:1', 'https://127.0.0.1:2']) assert.deepEqual(await source.authenticator.authenticate(bearer(iss)), { kind: 'error', message: 'oidc: authenticator not initialized' });
    assert.deepEqual(await source.authenticator.authenticate(bearer('https://127.0.0.1:3')), { kind: 'none' });
    assert.deepEqual(await source.authenticator.authenticate({ headers: { authorization: 'Bearer not-a-jwt' } }), { kind: 'none' });
    assert.deepEqual(await source.authenticator.authenticate({ headers: {} }), { kind: 'none' });
  } finally {
    source.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
