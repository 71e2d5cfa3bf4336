// A client CA dropped from --client-ca-file stops being trusted on connections already open, as
// kube-apiserver verifies the client certificate's chain against the current bundle on every
// request (x509.go): over a kept-alive HTTP/1.1 connection and an HTTP/2 session, the next request
// with a certificate of the dropped CA is a 401, a new watch too, and the CA put back makes it
// 200 again; a certificate of a CA still trusted is unaffected. A watch already under way goes on
// (kube authenticates a request once, when it starts; the watch ends at its timeout). The
// certificate's validity period and clientAuth usage are checked per request as well: one that
// expires while its connection is open is refused from then on.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { makeCACert, makeClientCert, makeSigningCA, type TestCA } from '../fixtures/certs.js';
import { startServer, type TestServer } from '../e2e/harness.js';
import { SecretVolume } from '../support/secret-volume.js';
import { bounded, waitUntil } from '../support/polling.js';

const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';
type ClientCert = { certPem: string; keyPem: string };

describe('a client CA dropped from --client-ca-file', () => {
  let dir: string;
  let server: TestServer;
  let clientCA: SecretVolume;
  let caA: TestCA;
  let caB: TestCA;
  let carl: ClientCert;
  let nina: ClientCert;
  const closers: (() => void)[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-ca-revocation-'));
    caA = await makeSigningCA('client-ca-a');
    caB = await makeSigningCA('client-ca-b');
    carl = await makeClientCert(caA, 'carl', ['system:masters']);
    nina = await makeClientCert(caB, 'nina', ['system:masters']);
    clientCA = new SecretVolume(join(dir, 'client-ca'));
    clientCA.publish({ 'ca.crt': caA.pem + caB.pem });
    server = await startServer({ args: ['--client-ca-file', clientCA.path('ca.crt'), '--controllers=-service-cidr-controller'] });
  });
  after(async () => {
    for (const close of closers.splice(0)) close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One kept-alive HTTP/1.1 connection presenting `cert`; each answer says whether it came on the connection already open. */
  function http1(cert: ClientCert) {
    const agent = new https.Agent({ ca: server.caCertPem, cert: cert.certPem, key: cert.keyPem, keepAlive: true, maxSockets: 1 });
    closers.push(() => agent.destroy());
    const get = (path: string) =>
      bounded(
        new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
          const req = https.get({ host: '127.0.0.1', port: server.port, path, agent }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket }));
          });
          req.on('error', reject);
        }),
        10_000,
        `GET ${path}`,
      );
    return { agent, get };
  }

  /** An HTTP/2 session presenting `cert`. */
  function http2Session(cert: ClientCert) {
    const session = http2.connect(`https://127.0.0.1:${server.port}`, { ca: server.caCertPem, cert: cert.certPem, key: cert.keyPem });
    session.on('error', () => {});
    closers.push(() => session.destroy());
    const get = (path: string) =>
      bounded(
        new Promise<number>((resolve, reject) => {
          const s = session.request({ ':path': path });
          let status = 0;
          s.on('response', (h) => (status = Number(h[':status'])));
          s.on('error', reject);
          s.resume();
          s.on('end', () => resolve(status));
        }),
        10_000,
        `h2 GET ${path}`,
      );
    return { session, get };
  }

  /** A watch of the trust bundles, over `open`'s connection; collects the names it hears of. */
  function watchOn(request: () => { on(e: string, f: (...a: any[]) => void): unknown }) {
    const names: string[] = [];
    const state = { status: 0, names };
    const s = request();
    s.on('response', (h: any) => (state.status = Number(h[':status'] ?? h.statusCode)));
    s.on('data', (c: Buffer) => {
      for (const m of c.toString().matchAll(/"name":"([^"]+)"/g)) names.push(m[1]!);
    });
    s.on('error', () => {});
    return state;
  }

  const freshConnectionStatus = async (cert: ClientCert) => {
    const c = http1(cert);
    const r = await c.get(CTB);
    c.agent.destroy();
    return r.status;
  };

  test('the next request on an open HTTP/1.1 or HTTP/2 connection is a 401; watches under way go on; the CA put back is trusted again', async () => {
    const carl1 = http1(carl);
    const carl2 = http2Session(carl);
    const nina1 = http1(nina);
    const nina2 = http2Session(nina);
    assert.equal((await carl1.get(CTB)).status, 200);
    assert.equal(await carl2.get(CTB), 200);
    assert.equal((await nina1.get(CTB)).status, 200);
    assert.equal(await nina2.get(CTB), 200);

    // Watches opened with carl's certificate before the CA goes: HTTP/1.1 on its own connection, HTTP/2 on carl's session.
    const watchAgent = new https.Agent({ ca: server.caCertPem, cert: carl.certPem, key: carl.keyPem });
    closers.push(() => watchAgent.destroy());
    let h1Watch: { status: number; names: string[] } = { status: 0, names: [] };
    const h1Req = https.get({ host: '127.0.0.1', port: server.port, path: `${CTB}?watch=1`, agent: watchAgent }, (res) => {
      h1Watch.status = res.statusCode!;
      res.on('data', (c: Buffer) => {
        for (const m of c.toString().matchAll(/"name":"([^"]+)"/g)) h1Watch.names.push(m[1]!);
      });
    });
    h1Req.on('error', () => {});
    closers.push(() => h1Req.destroy());
    const h2Watch = watchOn(() => carl2.session.request({ ':path': `${CTB}?watch=1` }));
    await waitUntil('both watches are open', async () => h1Watch.status === 200 && h2Watch.status === 200, 10_000);

    clientCA.publish({ 'ca.crt': caB.pem });
    await waitUntil('a new connection with a certificate of the dropped CA is refused', async () => (await freshConnectionStatus(carl)) === 401);

    const again = await carl1.get(CTB);
    assert.equal(again.reused, true, 'the request went over the connection opened while the CA was trusted');
    assert.equal(again.status, 401, 'HTTP/1.1 keep-alive: the dropped CA no longer authenticates');
    assert.equal(await carl2.get(CTB), 401, 'HTTP/2 session: the dropped CA no longer authenticates');
    const lateWatch = watchOn(() => carl2.session.request({ ':path': `${CTB}?watch=1` }));
    await waitUntil('the new watch is answered', async () => lateWatch.status !== 0, 10_000);
    assert.equal(lateWatch.status, 401, 'a new watch on the session is refused too');
    const nina1Again = await nina1.get(CTB);
    assert.deepEqual(nina1Again, { status: 200, reused: true }, 'a certificate of the CA still trusted is unaffected');
    assert.equal(await nina2.get(CTB), 200);

    // A watch already under way was authenticated when it started, as in kube: it goes on.
    const created = await server.request('POST', CTB, { body: { metadata: { name: 'after-revocation' }, spec: { trustBundle: (await makeCACert()).pem } } });
    assert.equal(created.status, 201, created.text);
    await waitUntil('the HTTP/1.1 watch opened before hears of it', async () => h1Watch.names.includes('after-revocation'), 10_000);
    await waitUntil('the HTTP/2 watch opened before hears of it', async () => h2Watch.names.includes('after-revocation'), 10_000);

    // Verified against the current bundle each time: the CA put back is trusted on the same connections.
    clientCA.publish({ 'ca.crt': caA.pem + caB.pem });
    await waitUntil('the CA put back is trusted again', async () => (await freshConnectionStatus(carl)) === 200);
    assert.deepEqual(await carl1.get(CTB), { status: 200, reused: true });
    assert.equal(await carl2.get(CTB), 200);
  });

  /** Both CAs in the bundle, and the server using it (each test starts from there). */
  const trustBoth = async () => {
    clientCA.publish({ 'ca.crt': caA.pem + caB.pem });
    await waitUntil('both CAs are trusted', async () => (await freshConnectionStatus(carl)) === 200 && (await freshConnectionStatus(nina)) === 200);
  };

  test('a certificate that expires while its connection is open is refused from then on', async () => {
    await trustBoth();
    const notAfter = new Date(Math.floor(Date.now() / 1000) * 1000 + 5000);
    const brief = await makeClientCert(caA, 'brief', ['system:masters'], { notAfter });
    const c1 = http1(brief);
    const c2 = http2Session(brief);
    assert.equal((await c1.get(CTB)).status, 200);
    assert.equal(await c2.get(CTB), 200);
    await new Promise((r) => setTimeout(r, Math.max(0, notAfter.getTime() - Date.now()) + 1500));
    assert.deepEqual(await c1.get(CTB), { status: 401, reused: true }, 'HTTP/1.1: expired');
    assert.equal(await c2.get(CTB), 401, 'HTTP/2: expired');
  });

  test('a certificate without the clientAuth usage does not authenticate', async () => {
    await trustBoth();
    const server2 = await makeClientCert(caA, 'server-only', ['system:masters'], { usages: [x509.ExtendedKeyUsage.serverAuth] });
    assert.equal((await http1(server2).get(CTB)).status, 401);
    assert.equal(await http2Session(server2).get(CTB), 401);
    const any = await makeClientCert(caA, 'any-usage', ['system:masters'], { usages: ['2.5.29.37.0'] });
    assert.equal((await http1(any).get(CTB)).status, 200, 'anyExtendedKeyUsage covers clientAuth');
  });
});
