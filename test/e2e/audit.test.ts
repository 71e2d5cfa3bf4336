// The audit log: events per stage at the policy's level, with the authorization decision, the
// impersonated user, bodies only where the level asks, and never a credential.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './harness.js';

const POLICY = `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/version"]
- level: RequestResponse
  resources:
  - group: networking.platform.io
    resources: [servicecidrs, servicecidrs/status]
- level: Metadata
`;

const SC = '/apis/networking.platform.io/v1/servicecidrs';

describe('audit log', () => {
  let server: TestServer;
  let dir: string;
  const events = (): any[] => readFileSync(join(dir, 'audit.log'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'platform-audit-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    server = await startServer({ args: ['--audit-log-path', join(dir, 'audit.log'), '--audit-policy-file', join(dir, 'policy.yaml')] });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const waitForEvents = async (pred: (e: any[]) => boolean): Promise<any[]> => {
    for (let i = 0; i < 100; i++) {
      const e = events();
      if (pred(e)) return e;
      await new Promise((r) => setTimeout(r, 50));
    }
    return events();
  };

  test('a create through impersonation: RequestResponse with bodies, decision and both users', async () => {
    const body = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'audited' }, spec: { cidrs: ['10.0.0.0/8'] } };
    const r = await server.request('POST', SC, { body, headers: { 'Impersonate-User': 'jane', 'Impersonate-Group': ['system:masters', 'auditors'] } });
    assert.equal(r.status, 201);
    const auditId = r.headers['audit-id'];
    const all = await waitForEvents((e) => e.some((x) => x.auditID === auditId));
    const mine = all.filter((e) => e.auditID === auditId);
    assert.deepEqual(mine.map((e) => e.stage), ['ResponseComplete'], 'RequestReceived is omitted by the policy');
    const e = mine[0];
    assert.equal(e.kind, 'Event');
    assert.equal(e.apiVersion, 'audit.k8s.io/v1');
    assert.equal(e.level, 'RequestResponse');
    assert.equal(e.verb, 'create');
    assert.equal(e.requestURI, SC);
    assert.deepEqual(e.user, { username: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] });
    assert.deepEqual(e.impersonatedUser, { username: 'jane', groups: ['system:masters', 'auditors', 'system:authenticated'] });
    assert.deepEqual(e.objectRef, { resource: 'servicecidrs', apiGroup: 'networking.platform.io', apiVersion: 'v1' });
    assert.deepEqual(e.responseStatus, { metadata: {}, code: 201 });
    assert.deepEqual(e.requestObject.spec, body.spec);
    assert.equal(e.responseObject.metadata.name, 'audited');
    assert.equal(e.annotations['authorization.k8s.io/decision'], 'allow');
    assert.match(e.requestReceivedTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  test('a list large enough to be written a slice at a time is recorded whole, once', async () => {
    const filler = 'y'.repeat(100 * 1024);
    for (let i = 0; i < 4; i++) {
      const body = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: `audited-large-${i}`, labels: { audit: 'large' }, annotations: { filler } }, spec: { cidrs: [`10.${i}.0.0/16`] } };
      assert.equal((await server.request('POST', SC, { body })).status, 201);
    }
    const list = await server.request('GET', `${SC}?labelSelector=audit%3Dlarge`);
    assert.equal(list.status, 200);
    assert.ok(Buffer.byteLength(list.text) > 256 * 1024, 'larger than one write');
    const auditId = list.headers['audit-id'];
    const all = await waitForEvents((e) => e.some((x) => x.auditID === auditId));
    const mine = all.filter((e) => e.auditID === auditId);
    assert.deepEqual(mine.map((e) => e.stage), ['ResponseComplete']);
    assert.deepEqual(mine[0].responseStatus, { metadata: {}, code: 200 });
    assert.deepEqual(mine[0].responseObject, list.json);
  });

  test('other resources at Metadata carry no bodies; None rules and failed logins are handled', async () => {
    await server.request('GET', '/healthz', { anonymous: true });
    const list = await server.request('GET', '/apis/certificates.platform.io/v1beta1/clustertrustbundles');
    const denied = await server.request('GET', SC, { token: 'not-a-token' });
    assert.equal(denied.status, 401);
    const all = await waitForEvents((e) => e.some((x) => x.auditID === denied.headers['audit-id']));
    const meta = all.find((e) => e.auditID === list.headers['audit-id']);
    assert.equal(meta.level, 'Metadata');
    assert.equal(meta.verb, 'list');
    assert.equal(meta.requestObject, undefined);
    assert.equal(meta.responseObject, undefined);
    assert.equal(all.some((e) => e.requestURI === '/healthz'), false);
    const failed = all.find((e) => e.auditID === denied.headers['audit-id']);
    assert.equal(failed.responseStatus.code, 401);
    assert.equal(failed.user.username, '');
  });

  test('no credential ever reaches the log', async () => {
    const text = readFileSync(join(dir, 'audit.log'), 'utf8');
    assert.equal(text.includes(server.token), false);
    assert.equal(/authorization/i.test(text.replace(/authorization\.k8s\.io\/(decision|reason)/g, '')), false);
  });
});
