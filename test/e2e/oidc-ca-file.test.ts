// --oidc-ca-file followed as it changes, against a real OIDC issuer over HTTPS on loopback: the
// issuer's serving certificate is reissued from a new CA while the server runs; once the CA file
// (a secret volume, swapped by symlink as the kubelet swaps it) holds the new CA, a token naming
// a key the server has not fetched yet (so the JWKS must be fetched over the new TLS) is
// accepted. A broken CA file keeps the last good CA, fails /readyz with the `oidc-ca-file` check
// while tokens already verifiable keep working, and a fixed file makes /readyz pass again.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, whoami, type TestServer } from './harness.js';
import { startOidcIssuer, type OidcIssuer } from '../support/oidc-issuer.js';
import { eventually } from '../support/polling.js';
import { SecretVolume } from '../support/secret-volume.js';


describe('--oidc-ca-file is re-read when it changes', () => {
  let issuer: OidcIssuer;
  let server: TestServer;
  let dir: string;
  let volume: SecretVolume;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-oidc-ca-'));
    issuer = await startOidcIssuer({ audience: 'platform' });
    volume = new SecretVolume(join(dir, 'oidc-ca'));
    volume.publish({ 'ca.crt': issuer.caPem });
    server = await startServer({
      args: ['--oidc-issuer-url', issuer.url, '--oidc-client-id', 'platform', '--oidc-ca-file', volume.path('ca.crt'), '--oidc-username-prefix', 'oidc:'],
    });
  });
  after(async () => {
    await server?.stop();
    await issuer?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const readyz = () => server.request('GET', '/readyz?verbose', { anonymous: true });

  test('the issuer reissued from a new CA: refused until the CA file has the new CA, then a new key is fetched and accepted', async () => {
    const first = await issuer.token({ sub: 'alice' });
    const r0 = await eventually(() => whoami(server, first), (x) => x.status === 201, 30_000, 300);
    assert.equal(r0.status, 201, r0.text);
    assert.equal(r0.json.status.userInfo.username, 'oidc:alice');

    const newCA = await issuer.peer.rotateCA();
    // A key the server has not seen: only a JWKS fetch from the rotated issuer can verify it.
    const key = await issuer.rotate();
    const rotated = await issuer.token({ sub: 'bob' }, { key });
    const fetchesBefore = issuer.jwksFetches();
    assert.equal((await whoami(server, rotated)).status, 401, 'the old CA does not trust the reissued certificate');
    assert.equal(issuer.jwksFetches(), fetchesBefore, 'the JWKS fetch failed in the TLS handshake');
    assert.equal((await whoami(server, first)).status, 201, 'keys already fetched stay valid');

    volume.publish({ 'ca.crt': newCA });
    // Refetches are rate-limited (one per 5 s); the swap is noticed within about a second.
    const r = await eventually(() => whoami(server, rotated), (x) => x.status === 201, 30_000, 500);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.status.userInfo.username, 'oidc:bob');
    assert.ok(issuer.jwksFetches() > fetchesBefore, 'the JWKS was fetched over the new TLS');
    assert.equal((await readyz()).status, 200);
  });

  test('a broken CA file keeps the last good CA and fails /readyz (oidc-ca-file) until fixed', async () => {
    const goodCA = issuer.peer.caPem;
    const known = await issuer.token({ sub: 'carol' });
    assert.equal((await whoami(server, known)).status, 201);

    volume.publish({ 'ca.crt': '-----BEGIN CERTIFICATE-----\nMIIBhalf-written' });
    const failing = await eventually(readyz, (x) => x.status === 500, 30_000, 200);
    assert.equal(failing.status, 500, failing.text);
    assert.match(failing.text, /\[-\]oidc-ca-file failed/);
    const detail = await server.request('GET', '/readyz/oidc-ca-file');
    assert.equal(detail.status, 500);
    assert.match(detail.text, /OIDC CA file .*ca\.crt is not usable: the bundle holds an incomplete certificate; keeping the last good CA/);
    assert.equal((await server.request('GET', '/livez', { anonymous: true })).status, 200, 'liveness is not affected');
    assert.equal((await whoami(server, known)).status, 201, 'tokens already verifiable keep working');
    // The last good CA is still the one used: a new key is fetched and trusted.
    const key = await issuer.rotate();
    const fresh = await issuer.token({ sub: 'dave' }, { key });
    assert.equal((await eventually(() => whoami(server, fresh), (x) => x.status === 201, 30_000, 500)).status, 201, 'fetches still trust the last good CA');

    volume.publish({ 'ca.crt': '' });
    const empty = await eventually(() => server.request('GET', '/readyz/oidc-ca-file'), (x) => /no certificate in the bundle/.test(x.text), 30_000, 200);
    assert.equal(empty.status, 500, 'an empty file is broken too');

    volume.publish({ 'ca.crt': goodCA });
    const ok = await eventually(readyz, (x) => x.status === 200, 30_000, 200);
    assert.equal(ok.status, 200, ok.text);
    assert.match(ok.text, /\[\+\]oidc-ca-file ok/);
    const logged = server.log().match(/OIDC CA file [^"]* is not usable: the bundle holds an incomplete certificate/g) ?? [];
    assert.equal(logged.length, 1, 'the broken file is logged once, not at every check');
  });
});
