// The metrics hook, wired: createApiServer given a RequestObserver reports each finished request
// with kube's labels, and in-flight slots as they are taken and given back (what the /metrics
// implementation plugs into). In-process server over real HTTPS, memory storage.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { silentLogger } from '../../src/apimachinery/request-context.js';
import { ALL_RULES, type Authorizer } from '../../src/auth/authorizer.js';
import type { Authenticator } from '../../src/auth/authenticator.js';
import type { RequestObservation as ObservedRequest, RequestKind, RequestObserver } from '../../src/apimachinery/request-observer.js';
import { createApiServer, type ApiServer } from '../../src/http/server.js';
import { GenericStore } from '../../src/registry/generic-store.js';
import { serviceCIDRs } from '../../src/resources/servicecidrs/index.js';
import { MemoryStore } from '../../src/storage/sqlite/memory-store.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServingCertificates } from '../../src/config/certificates.js';
import { KUBERNETES_VERSION } from '../../src/version.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';

describe('request observer', () => {
  let server: ApiServer;
  let port: number;
  let ca: string;
  const dir = mkdtempSync(join(tmpdir(), 'observer-'));
  const observed: ObservedRequest[] = [];
  const inflight: string[] = [];
  const observer: RequestObserver = {
    observe: (o) => void observed.push(o),
    inflight: (kind: RequestKind, delta) => void inflight.push(`${kind}${delta > 0 ? '+' : '-'}`),
    longRunning() {},
    rejected() {},
  };

  before(async () => {
    const { certPem, keyPem, caCertPem } = await ensureServingCertificates({ dir, hosts: ['127.0.0.1'] });
    ca = caCertPem;
    const authenticator: Authenticator = { authenticate: async () => ({ kind: 'user', user: { username: 'tester', groups: ['system:authenticated'] } }) };
    const authorizer: Authorizer = { authorize: async () => ({ decision: 'allow', reason: '' }), rulesFor: async () => ALL_RULES };
    const storage = new MemoryStore();
    const main = new GenericStore({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage, admission: [] });
    server = createApiServer({
      resources: [{ definition: serviceCIDRs, main: main as never }],
      authenticator,
      authorizer,
      tls: { certPem, keyPem },
      logger: silentLogger,
      version: KUBERNETES_VERSION,
      observer,
    });
    ({ port } = await server.listen('127.0.0.1', 0));
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const request = (method: string, path: string, body?: object) =>
    new Promise<number>((resolve, reject) => {
      const r = https.request({ host: '127.0.0.1', port, method, path, ca, servername: 'localhost', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      r.on('error', reject);
      r.end(body ? JSON.stringify(body) : undefined);
    });

  test('each finished request is observed once, with bounded labels; slots are taken and given back', async () => {
    assert.equal(await request('POST', SC, { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'm1' }, spec: { cidrs: ['10.2.0.0/24'] } }), 201);
    assert.equal(await request('GET', `${SC}/m1`), 200);
    assert.equal(await request('GET', `${SC}/missing`), 404);
    for (let i = 0; i < 50 && observed.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(
      observed.map((o) => [o.verb, o.resource, o.scope, o.code]),
      [
        ['POST', 'servicecidrs', 'resource', 201],
        ['GET', 'servicecidrs', 'resource', 200],
        ['GET', 'servicecidrs', 'resource', 404],
      ],
    );
    assert.ok(observed.every((o) => o.durationSeconds >= 0 && o.component === 'apiserver'));
    assert.ok(observed[1]!.responseBytes > 0);
    assert.deepEqual(inflight, ['mutating+', 'mutating-', 'readOnly+', 'readOnly-', 'readOnly+', 'readOnly-']);
  });
});
