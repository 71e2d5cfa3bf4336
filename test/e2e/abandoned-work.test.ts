// A request the timeout answers 504 stops its work where that is safe, through real HTTPS
// (HTTP/1.1 and HTTP/2) on an in-process server over a real SQLite file: a write whose deadline
// passed before its storage write started is never applied; a write already sent to storage
// when the deadline passed commits, and the audit log records it as committed (201, with the
// note that the client was answered 504). The slow steps are held, not slept: an admission
// plugin and a storage put wait until the client has its 504, so nothing depends on timing.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import type { AdmissionPlugin } from '../../src/apimachinery/admission.js';
import type { KubeObject } from '../../src/apimachinery/object-meta.js';
import { unionAuthenticator } from '../../src/auth/authenticator.js';
import { METADATA_FOR_ALL } from '../../src/auth/audit/audit-policy.js';
import { privilegedGroupsAuthorizer, unionAuthorizer } from '../../src/auth/rbac/rbac-authorizer.js';
import { TokenAuthenticator } from '../../src/auth/token-authenticator.js';
import { ensureServingCertificates } from '../../src/config/certificates.js';
import { AuditLog } from '../../src/http/audit-log.js';
import { TIMED_OUT_ANNOTATION } from '../../src/http/filters/audit.js';
import { createApiServer, type ApiServer } from '../../src/http/server.js';
import { GenericStore, keyPrefixOf } from '../../src/registry/generic-store.js';
import { allResources } from '../../src/resources/all.js';
import type { RevisionedStore } from '../../src/storage/revisioned-store.js';
import { openSqliteStore } from '../../src/storage/sqlite-store.js';
import { WatchCache } from '../../src/storage/watch-cache.js';
import { KUBERNETES_VERSION } from '../../src/version.js';
import { bounded, eventually } from '../support/polling.js';
import { httpRequest, type HttpResult } from './harness.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const cidr = (name: string) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: ['10.66.0.0/24'] } });

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A step that waits, when armed, until released; says when it is reached and when it is over. */
class Hold {
  private release: (() => void) | undefined;
  private gate: Promise<void> | undefined;
  reached = deferred();
  passed = deferred();

  arm(): void {
    this.reached = deferred();
    this.passed = deferred();
    this.gate = new Promise<void>((resolve) => (this.release = resolve));
  }

  async wait(): Promise<void> {
    const gate = this.gate;
    if (!gate) return;
    this.gate = undefined;
    this.reached.resolve();
    await gate;
  }

  open(): void {
    this.release?.();
  }
}

describe('work of a request answered 504 Timeout', () => {
  const admissionHold = new Hold();
  const putHold = new Hold();
  let dir: string;
  let server: ApiServer;
  let close: () => Promise<void>;
  let url: URL;
  let ca: string;
  let token: string;
  let agent: https.Agent;
  const request = (method: string, path: string, body?: object): Promise<HttpResult> => httpRequest(agent, url, method, path, { body, timeoutMs: 30_000 }, token);
  const auditTrail = (id: string): any[] =>
    readFileSync(join(dir, 'audit.log'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((e) => e.auditID === id);
  /** A request's audit events once its work is over (its ResponseComplete is written). */
  const completedTrail = (id: string): Promise<any[]> =>
    eventually(
      async () => auditTrail(id),
      (t) => t.some((e) => e.stage === 'ResponseComplete'),
      10_000,
      50,
    );

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-abandon-'));
    const storage = openSqliteStore({ path: join(dir, 'state.db'), durability: 'normal' });
    const caches = await Promise.all(allResources.map((definition) => WatchCache.start({ store: storage, prefix: keyPrefixOf(definition), onError: () => {} })));
    const authorizer = unionAuthorizer([privilegedGroupsAuthorizer(['system:masters'])]);
    token = randomBytes(16).toString('hex');
    // Holds a write of an object named held-* at admission (before the storage write).
    const slowAdmission: AdmissionPlugin = {
      name: 'HeldForTest',
      validate: async (a) => {
        if (a.name.startsWith('held-')) await admissionHold.wait();
      },
    };
    const resources = allResources.map((definition, i) => {
      const cache = caches[i]!;
      // Holds a storage put (sent by the registry, not yet committed) when armed.
      const storage = new Proxy(cache, {
        get(target, key) {
          if (key === 'optimisticPut') {
            return async (...args: Parameters<RevisionedStore['optimisticPut']>) => {
              await putHold.wait();
              try {
                return await target.optimisticPut(...args);
              } finally {
                putHold.passed.resolve();
              }
            };
          }
          const v = Reflect.get(target, key) as unknown;
          return typeof v === 'function' ? v.bind(target) : v;
        },
      }) as RevisionedStore;
      const status = definition.subresources.find((s) => s.name === 'status');
      return {
        definition,
        main: new GenericStore<KubeObject>({ definition, strategy: definition.strategy, subresource: '', storage, admission: [slowAdmission] }),
        status: status ? new GenericStore<KubeObject>({ definition, strategy: status.strategy, subresource: 'status', storage, admission: [slowAdmission] }) : undefined,
      };
    });
    const tls = await ensureServingCertificates({ dir, hosts: ['127.0.0.1'] });
    const audit = new AuditLog(join(dir, 'audit.log'), METADATA_FOR_ALL);
    server = createApiServer({
      resources,
      authenticator: unionAuthenticator([new TokenAuthenticator(new Map([[token, { username: 'admin', uid: 'admin', groups: ['system:masters'] }]]))]),
      authorizer,
      tls,
      logger: pino({ level: 'silent' }),
      version: KUBERNETES_VERSION,
      audit,
      // A tiny --request-timeout: the held requests pass it while they wait.
      requestTimeoutMs: 300,
    });
    const { port } = await server.listen('127.0.0.1', 0);
    url = new URL(`https://127.0.0.1:${port}`);
    ca = tls.caCertPem;
    agent = new https.Agent({ ca, keepAlive: true });
    close = async () => {
      agent.destroy();
      await server.close();
      await Promise.all(caches.map((c) => c.close()));
      await storage.close();
      await audit.close();
    };
  });
  after(async () => {
    admissionHold.open();
    putHold.open();
    await close?.();
    rmSync(dir, { recursive: true, force: true });
  });

  const assertTimeoutStatus = (r: { status: number; json: any }) => {
    assert.equal(r.status, 504);
    assert.deepEqual(
      { kind: r.json.kind, apiVersion: r.json.apiVersion, status: r.json.status, reason: r.json.reason, code: r.json.code, message: r.json.message },
      { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Timeout', code: 504, message: 'Timeout: request did not complete within the allotted timeout' },
    );
  };

  test('a create whose deadline passed before its storage write is not applied (HTTP/1.1), and is audited as abandoned', async () => {
    admissionHold.arm();
    const answer = request('POST', SC, cidr('held-create'));
    await bounded(admissionHold.reached.promise, 10_000, 'admission reached');
    const r = await answer;
    assertTimeoutStatus(r);
    admissionHold.open();
    // The registry stopped before the write: the work ends with the Timeout, and no object.
    const trail = await completedTrail(String(r.headers['audit-id']));
    const complete = trail.find((e) => e.stage === 'ResponseComplete');
    assert.equal(complete.responseStatus.code, 504);
    assert.match(complete.annotations[TIMED_OUT_ANNOTATION], /answered 504/);
    assert.equal((await request('GET', `${SC}/held-create`)).status, 404);
  });

  test('an update (patch) whose deadline passed before its storage write is not applied (HTTP/2)', async () => {
    assert.equal((await request('POST', SC, { ...cidr('held-patch'), metadata: { name: 'held-patch', labels: { v: '1' } } })).status, 201);
    admissionHold.arm();
    const session = http2.connect(url.href, { ca });
    session.on('error', () => undefined);
    let auditId = '';
    try {
      const r = await new Promise<{ status: number; json: any }>((resolve, reject) => {
        const stream = session.request({ ':method': 'PATCH', ':path': `${SC}/held-patch`, authorization: `Bearer ${token}`, 'content-type': 'application/merge-patch+json' });
        let status = 0;
        let text = '';
        stream.on('response', (h) => {
          status = Number(h[':status']);
          auditId = String(h['audit-id']);
        });
        stream.on('data', (c: Buffer) => (text += c.toString()));
        stream.on('end', () => resolve({ status, json: JSON.parse(text) }));
        stream.on('error', reject);
        stream.end(JSON.stringify({ metadata: { labels: { v: '2' } } }));
      });
      assertTimeoutStatus(r);
    } finally {
      session.close();
    }
    admissionHold.open();
    // The work is over when its audit trail ends; then the object is as it was.
    const trail = await completedTrail(auditId);
    assert.equal(trail.find((e) => e.stage === 'ResponseComplete').responseStatus.code, 504);
    const got = await request('GET', `${SC}/held-patch`);
    assert.equal(got.json.metadata.labels.v, '1');
  });

  test('a create already sent to storage when the deadline passed commits, and the audit log says 201', async () => {
    putHold.arm();
    const answer = request('POST', SC, cidr('committed-late'));
    await bounded(putHold.reached.promise, 10_000, 'storage put reached');
    const r = await answer;
    assertTimeoutStatus(r);
    putHold.open();
    await bounded(putHold.passed.promise, 10_000, 'storage put done');
    const got = await request('GET', `${SC}/committed-late`);
    assert.equal(got.status, 200, 'the write that reached storage is applied');
    const trail = await completedTrail(String(r.headers['audit-id']));
    const complete = trail.find((e) => e.stage === 'ResponseComplete');
    assert.equal(complete.responseStatus.code, 201, 'audited as what happened: created');
    assert.match(complete.annotations[TIMED_OUT_ANNOTATION], /answered 504/);
  });
});
