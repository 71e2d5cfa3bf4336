// TLS as kube-apiserver serves it, against the real server over real TLS on loopback:
// --tls-min-version and --tls-cipher-suites (Go's names; TLS 1.3 suites not configurable), and
// the serving certificate, key and client CA re-read when their files change, laid out and
// swapped as a Kubernetes secret volume swaps them (an atomic rename of `..data`): an open watch
// survives, a new connection gets the new certificate, a broken file keeps the last good one
// and fails /readyz (named check) until fixed.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { ensureServingCertificates } from '../../src/config/certificates.js';
import { makeCACert, makeClientCert, makeSigningCA } from '../fixtures/certs.js';
import { startServer, type TestServer } from './harness.js';
import { SecretVolume } from '../support/secret-volume.js';
import { waitUntil } from '../support/polling.js';

const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';

interface Handshake {
  ok: boolean;
  protocol?: string;
  cipher?: string;
  fingerprint?: string;
  error?: string;
}

/** One TLS handshake with the server (no HTTP), as a client limited to `opts` would make it. */
function handshake(port: number, opts: tls.ConnectionOptions = {}): Promise<Handshake> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'], ...opts });
    const timer = setTimeout(() => done({ ok: false, error: 'no answer within 10 s' }), 10_000);
    const done = (h: Handshake): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(h);
    };
    socket.once('secureConnect', () => done({ ok: true, protocol: socket.getProtocol() ?? '', cipher: socket.getCipher().name, fingerprint: socket.getPeerX509Certificate()?.fingerprint256 }));
    socket.once('error', (err) => done({ ok: false, error: err.message }));
  });
}

/** Polls `probe` until it returns true, for at most `ms` (a loaded machine may be slow to notice). */
describe('serving certificates and client CA follow their files', () => {
  let server: TestServer;
  let dir: string;
  let serving: SecretVolume;
  let clientCA: SecretVolume;
  let pki: string;
  let caPem: string;
  const pairs: { certPem: string; keyPem: string; fingerprint: string }[] = [];

  /** A new serving certificate for 127.0.0.1 signed by the same CA. */
  async function newPair(): Promise<{ certPem: string; keyPem: string; fingerprint: string }> {
    rmSync(join(pki, 'apiserver.crt'), { force: true });
    const c = await ensureServingCertificates({ dir: pki, hosts: ['127.0.0.1'] });
    caPem = c.caCertPem;
    const pair = { certPem: c.certPem, keyPem: c.keyPem, fingerprint: new X509Certificate(c.certPem).fingerprint256 };
    pairs.push(pair);
    return pair;
  }
  const agent = () => new https.Agent({ ca: caPem, keepAlive: false });
  const request = (method: string, path: string, o: { body?: object; cert?: { certPem: string; keyPem: string }; token?: string | null } = {}): Promise<{ status: number; json: any }> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = {};
      if (o.token !== null) headers.Authorization = `Bearer ${o.token ?? server.token}`;
      if (o.body) headers['Content-Type'] = 'application/json';
      const req = https.request({ host: '127.0.0.1', port: server.port, method, path, agent: agent(), headers, ...(o.cert ? { cert: o.cert.certPem, key: o.cert.keyPem } : {}), timeout: 20_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end(o.body ? JSON.stringify(o.body) : undefined);
    });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-tls-reload-'));
    pki = join(dir, 'pki');
    serving = new SecretVolume(join(dir, 'serving'));
    clientCA = new SecretVolume(join(dir, 'client-ca'));
    const first = await newPair();
    serving.publish({ 'tls.crt': first.certPem, 'tls.key': first.keyPem });
    clientCA.publish({ 'ca.crt': (await makeCACert({ commonName: 'unused-ca' })).pem });
    server = await startServer({
      args: ['--tls-cert-file', serving.path('tls.crt'), '--tls-private-key-file', serving.path('tls.key'), '--client-ca-file', clientCA.path('ca.crt'), '--controllers=-service-cidr-controller'],
    });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('default TLS: 1.2 and 1.3 with Go\'s default suites; TLS 1.1 and a suite outside the defaults are refused', async () => {
    const v12 = await handshake(server.port, { maxVersion: 'TLSv1.2' });
    assert.equal(v12.ok, true, v12.error);
    assert.equal(v12.protocol, 'TLSv1.2');
    assert.equal(v12.cipher, 'ECDHE-ECDSA-AES128-GCM-SHA256');
    assert.equal((await handshake(server.port)).protocol, 'TLSv1.3');
    const v11 = await handshake(server.port, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' });
    assert.equal(v11.ok, false);
    const weak = await handshake(server.port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-SHA256' });
    assert.equal(weak.ok, false, 'an insecure suite is not among the defaults');
  });

  test('a rotated certificate: open watches survive, new connections get the new certificate', async () => {
    assert.equal((await handshake(server.port)).fingerprint, pairs[0]!.fingerprint);
    // A watch on its own connection, opened before the rotation.
    const events: string[] = [];
    let watchSocket: tls.TLSSocket | undefined;
    const watch = https.request({ host: '127.0.0.1', port: server.port, path: `${CTB}?watch=1`, agent: agent(), headers: { Authorization: `Bearer ${server.token}` } }, (res) => {
      watchSocket = res.socket as tls.TLSSocket;
      res.on('data', (c: Buffer) => events.push(...c.toString().split('\n').filter(Boolean)));
    });
    watch.on('error', () => {});
    watch.end();
    // And one over HTTP/2, as kubectl and client-go watch.
    const h2Events: string[] = [];
    const session = http2.connect(`https://127.0.0.1:${server.port}`, { ca: caPem });
    session.on('error', () => {});
    const h2Watch = session.request({ ':path': `${CTB}?watch=1`, authorization: `Bearer ${server.token}` });
    h2Watch.on('data', (c: Buffer) => h2Events.push(...c.toString().split('\n').filter(Boolean)));
    h2Watch.on('error', () => {});
    let h2Status = 0;
    h2Watch.on('response', (headers) => (h2Status = Number(headers[':status'])));
    await waitUntil('the watches are open', async () => watchSocket !== undefined && h2Status === 200);
    try {
      const second = await newPair();
      serving.publish({ 'tls.crt': second.certPem, 'tls.key': second.keyPem });
      await waitUntil('a new connection gets the new certificate', async () => (await handshake(server.port)).fingerprint === second.fingerprint);
      // The watch is still open on the old certificate and still delivers events.
      assert.equal(watchSocket!.getPeerX509Certificate()?.fingerprint256, pairs[0]!.fingerprint);
      const created = await request('POST', CTB, { body: { metadata: { name: 'after-rotation' }, spec: { trustBundle: (await makeCACert()).pem } } });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      await waitUntil('the old watch sees the new object', async () => events.some((e) => e.includes('"after-rotation"')));
      await waitUntil('the old HTTP/2 watch too', async () => h2Events.some((e) => e.includes('"after-rotation"')));
      assert.equal((await request('GET', '/readyz')).status, 200);
    } finally {
      watch.destroy();
      h2Watch.close();
      session.destroy();
    }
  });

  test('a broken certificate keeps the last good one and fails /readyz until a good one comes', async () => {
    const good = pairs[pairs.length - 1]!;
    const other = await newPair();
    // A certificate with a key that is not its own.
    serving.publish({ 'tls.crt': other.certPem, 'tls.key': good.keyPem });
    await waitUntil('/readyz fails, naming the check', async () => {
      const r = await request('GET', '/readyz?verbose', { token: null });
      return r.status === 500 && String(r.json).includes('[-]serving-cert failed');
    });
    assert.equal((await handshake(server.port)).fingerprint, good.fingerprint, 'still serving the last good certificate');
    // Half-written PEM: still the last good one.
    serving.publish({ 'tls.crt': other.certPem.slice(0, 100), 'tls.key': other.keyPem });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal((await handshake(server.port)).fingerprint, good.fingerprint);
    serving.publish({ 'tls.crt': other.certPem, 'tls.key': other.keyPem });
    await waitUntil('the fixed pair is served', async () => (await handshake(server.port)).fingerprint === other.fingerprint);
    await waitUntil('/readyz passes again', async () => (await request('GET', '/readyz', { token: null })).status === 200);
  });

  test('a rotated client CA: certificates of the new CA authenticate, those of the old one no longer do', async () => {
    const oldCA = await makeSigningCA('old-client-ca');
    const newCA = await makeSigningCA('new-client-ca');
    const carl = await makeClientCert(oldCA, 'carl', ['ops']);
    const nina = await makeClientCert(newCA, 'nina', ['ops']);
    const whoami = (cert: { certPem: string; keyPem: string }) => request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { cert, token: null, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    clientCA.publish({ 'ca.crt': oldCA.pem });
    await waitUntil('the old CA is trusted', async () => (await whoami(carl)).status === 201);
    assert.equal((await whoami(carl)).json.status.userInfo.username, 'carl');
    assert.equal((await whoami(nina)).status, 401);
    clientCA.publish({ 'ca.crt': newCA.pem });
    await waitUntil('the new CA is trusted', async () => (await whoami(nina)).status === 201);
    assert.equal((await whoami(carl)).status, 401);
    // A broken bundle keeps the last good one and fails /readyz.
    clientCA.publish({ 'ca.crt': 'not a certificate' });
    await waitUntil('/readyz fails, naming the check', async () => {
      const r = await request('GET', '/readyz?verbose', { token: null });
      return r.status === 500 && String(r.json).includes('[-]client-ca-bundle failed');
    });
    assert.equal((await whoami(nina)).status, 201);
    clientCA.publish({ 'ca.crt': newCA.pem });
    await waitUntil('/readyz passes again', async () => (await request('GET', '/readyz', { token: null })).status === 200);
  });
});

describe('--tls-min-version and --tls-cipher-suites', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ args: ['--tls-min-version', 'VersionTLS11', '--tls-cipher-suites', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256', '--controllers=-service-cidr-controller'] });
  });
  after(() => server?.stop());

  test('the minimum version is kept: TLS 1.0 refused, TLS 1.1 accepted', async () => {
    const v10 = await handshake(server.port, { minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' });
    assert.equal(v10.ok, false);
    const v11 = await handshake(server.port, { minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' });
    assert.equal(v11.ok, true, v11.error);
    assert.equal(v11.protocol, 'TLSv1.1');
    assert.equal(v11.cipher, 'ECDHE-ECDSA-AES128-SHA');
  });

  test('only the listed suites for TLS 1.2; TLS 1.3 suites are not configurable', async () => {
    assert.equal((await handshake(server.port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' })).ok, false);
    const listed = await handshake(server.port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384' });
    assert.equal(listed.cipher, 'ECDHE-ECDSA-AES256-GCM-SHA384', listed.error);
    const v13 = await handshake(server.port, { minVersion: 'TLSv1.3', ciphers: 'TLS_CHACHA20_POLY1305_SHA256' });
    assert.equal(v13.protocol, 'TLSv1.3', v13.error);
    assert.equal(v13.cipher, 'TLS_CHACHA20_POLY1305_SHA256');
  });

  test("an insecure suite is accepted with kube's warning", () => {
    assert.match(server.log(), /Use of insecure cipher 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256' detected\./);
  });
});
