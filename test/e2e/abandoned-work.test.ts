// A request the timeout answers 504 stops its work where that is safe, through real HTTPS
// (HTTP/1.1 and HTTP/2) on an in-process server over a real SQLite file: a write whose deadline
// passed before its storage write started is never applied; a write already sent to storage
// when the deadline passed commits, and the audit log records it as committed (201, with the
// note that the client was answered 504). The slow steps are held, not slept: an admission
// plugin and a storage put wait until the client has its 504, so nothing depends on timing.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { join } from 'node:path';
import type { AdmissionPlugin } from '../../src/apimachinery/admission.js';
import { TIMED_OUT_ANNOTATION } from '../../src/http/filters/audit.js';
import type { RevisionedStore } from '../../src/storage/revisioned-store.js';
import { bounded, eventually } from '../support/polling.js';
import type { HttpResult, TestServer } from './harness.js';
import { startInProcessServer } from './in-process-server.js';

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
  let server: TestServer;
  const request = (method: string, path: string, body?: object): Promise<HttpResult> => server.request(method, path, { body, timeoutMs: 30_000 });
  const auditTrail = (id: string): any[] =>
    readFileSync(join(server.dataDir, 'audit.log'), 'utf8')
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
    // Holds a write of an object named held-* at admission (before the storage write).
    const slowAdmission: AdmissionPlugin = {
      name: 'HeldForTest',
      validate: async (a) => {
        if (a.name.startsWith('held-')) await admissionHold.wait();
      },
    };
    // Holds a storage put (sent by the registry, not yet committed) when armed.
    const holdPuts = (cache: RevisionedStore): RevisionedStore =>
      new Proxy(cache, {
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
      });
    // A tiny --request-timeout: the held requests pass it while they wait.
    server = await startInProcessServer({ admission: [slowAdmission], wrapStorage: holdPuts, audit: true, requestTimeoutMs: 300 });
  });

  after(async () => {
    admissionHold.open();
    putHold.open();
    await server?.stop();
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
    const session = http2.connect(server.url, { ca: server.caCertPem });
    session.on('error', () => undefined);
    let auditId = '';
    try {
      const r = await new Promise<{ status: number; json: any }>((resolve, reject) => {
        const stream = session.request({ ':method': 'PATCH', ':path': `${SC}/held-patch`, authorization: `Bearer ${server.token}`, 'content-type': 'application/merge-patch+json' });
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
