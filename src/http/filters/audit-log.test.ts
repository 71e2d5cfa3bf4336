// One request's audit trail on its own (RequestAudit): the audit.k8s.io/v1 Event at each stage,
// as kube writes it, at the level the policy gives; bodies only at Request and RequestResponse;
// stages the policy omits left out; authorization annotations.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestInfo, UserInfo } from '../../apimachinery/request-context.js';
import type { AuditLevel, AuditPolicy, AuditStage } from '../../auth/audit/audit-policy.js';
import type { HttpRequest } from '../transport/exchange.js';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noopAuditObserver } from '../../auth/audit/audit-observer.js';
import { AuditLog, RequestAudit } from './audit-log.js';

type Event = Record<string, any>;

function audit(level: AuditLevel, omitStages: AuditStage[] = []) {
  const events: Event[] = [];
  const policy: AuditPolicy = { rules: [{ level, omitStages }] };
  const log = { policy, write: (e: object) => events.push(e as Event) } as unknown as AuditLog;
  const req = { url: '/apis/networking.platform.io/v1/servicecidrs/x?dryRun=All', method: 'PUT', ip: '127.0.0.1', headers: { 'user-agent': 'kubectl/v1.33' } } as unknown as HttpRequest;
  const a = new RequestAudit(log, 'id-1', req, new Date('2026-11-22T10:00:00.123Z'));
  return { a, events };
}

const info = (over: Partial<RequestInfo> = {}): RequestInfo => ({
  isResourceRequest: true,
  path: '/apis/networking.platform.io/v1/servicecidrs/x',
  verb: 'update',
  apiPrefix: 'apis',
  apiGroup: 'networking.platform.io',
  apiVersion: 'v1',
  namespace: '',
  resource: 'servicecidrs',
  subresource: '',
  name: 'x',
  parts: [],
  ...over,
});
const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };
const body = Buffer.from('{"kind":"ServiceCIDR"}');

describe('RequestAudit', () => {
  test('Metadata: the event kube writes at RequestReceived and ResponseComplete, without bodies', () => {
    const { a, events } = audit('Metadata');
    a.identify(alice, undefined, info(), body);
    a.authorized({ decision: 'allow', reason: 'RBAC: allowed' });
    a.responseBodyWas(Buffer.from('{"kind":"ServiceCIDR","x":1}'));
    a.complete(200);
    assert.equal(events.length, 2);
    const [received, complete] = events as [Event, Event];
    assert.deepEqual(Object.keys(received), ['kind', 'apiVersion', 'auditID', 'requestURI', 'verb', 'user', 'sourceIPs', 'userAgent', 'requestReceivedTimestamp', 'level', 'objectRef', 'stage', 'stageTimestamp']);
    assert.equal(received.kind, 'Event');
    assert.equal(received.apiVersion, 'audit.k8s.io/v1');
    assert.equal(received.auditID, 'id-1');
    assert.equal(received.requestURI, '/apis/networking.platform.io/v1/servicecidrs/x?dryRun=All');
    assert.equal(received.verb, 'update');
    assert.deepEqual(received.user, { username: 'alice', groups: ['system:authenticated'] });
    assert.deepEqual(received.sourceIPs, ['127.0.0.1']);
    assert.equal(received.userAgent, 'kubectl/v1.33');
    assert.equal(received.requestReceivedTimestamp, '2026-11-22T10:00:00.123000Z');
    assert.match(received.stageTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(received.level, 'Metadata');
    assert.deepEqual(received.objectRef, { resource: 'servicecidrs', apiGroup: 'networking.platform.io', apiVersion: 'v1', name: 'x' });
    assert.equal(received.stage, 'RequestReceived');
    assert.equal(complete.stage, 'ResponseComplete');
    assert.deepEqual(complete.responseStatus, { metadata: {}, code: 200 });
    assert.deepEqual(complete.annotations, { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'RBAC: allowed' });
    assert.equal('requestObject' in complete, false);
    assert.equal('responseObject' in complete, false);
  });

  test('Request records the request body; RequestResponse the response body too, at ResponseComplete only', () => {
    const req = audit('Request');
    req.a.identify(alice, undefined, info(), body);
    req.a.complete(200);
    assert.deepEqual(req.events.map((e) => e.requestObject), [{ kind: 'ServiceCIDR' }, { kind: 'ServiceCIDR' }]);
    assert.equal(req.a.wantsResponseBody, false);

    const full = audit('RequestResponse');
    full.a.identify(alice, undefined, info(), body);
    assert.equal(full.a.wantsResponseBody, true);
    full.a.responseBodyWas(Buffer.from('{"ok":true}'));
    full.a.responseStarted(200);
    full.a.complete(200);
    assert.deepEqual(full.events.map((e) => [e.stage, e.responseObject]), [
      ['RequestReceived', undefined],
      ['ResponseStarted', undefined],
      ['ResponseComplete', { ok: true }],
    ]);
    assert.deepEqual(full.events[1]!.responseStatus, { metadata: {}, code: 200 });
    assert.deepEqual(full.events.map((e) => e.requestObject), [{ kind: 'ServiceCIDR' }, { kind: 'ServiceCIDR' }, { kind: 'ServiceCIDR' }], 'the request body at every stage');
  });

  test('bodies that are empty, not JSON, or too deep are not recorded', () => {
    for (const b of [Buffer.alloc(0), Buffer.from('not json'), Buffer.from(`${'['.repeat(20_000)}${']'.repeat(20_000)}`)]) {
      const { a, events } = audit('RequestResponse');
      a.identify(alice, undefined, info(), b);
      a.responseBodyWas(b);
      a.complete(200);
      assert.equal('requestObject' in events[0]!, false);
      assert.equal('responseObject' in events[1]!, false);
    }
  });

  test('None writes nothing; omitted stages are left out', () => {
    const none = audit('None');
    none.a.identify(alice, undefined, info(), body);
    none.a.complete(200);
    assert.deepEqual(none.events, []);
    const omit = audit('Metadata', ['RequestReceived']);
    omit.a.identify(alice, undefined, info(), body);
    omit.a.complete(404);
    assert.deepEqual(omit.events.map((e) => e.stage), ['ResponseComplete']);
  });

  test('the user, the impersonated user with uid and extra, namespace and subresource, a non-resource request', () => {
    const { a, events } = audit('Metadata');
    const bob: UserInfo = { username: 'bob', uid: 'u-2', groups: ['g'], extra: { scopes: ['x'] } };
    a.identify(alice, bob, info({ namespace: 'ns', subresource: 'status', name: '' }), undefined);
    assert.deepEqual(events[0]!.user, { username: 'alice', groups: ['system:authenticated'] });
    assert.deepEqual(events[0]!.impersonatedUser, { username: 'bob', uid: 'u-2', groups: ['g'], extra: { scopes: ['x'] } });
    assert.deepEqual(events[0]!.objectRef, { resource: 'servicecidrs', apiGroup: 'networking.platform.io', apiVersion: 'v1', namespace: 'ns', subresource: 'status' });
    const anon = audit('Metadata');
    anon.a.identify(undefined, undefined, info({ isResourceRequest: false, verb: 'get' }), undefined);
    assert.deepEqual(anon.events[0]!.user, { username: '', groups: [] });
    assert.equal('objectRef' in anon.events[0]!, false);
    assert.equal(anon.events[0]!.verb, 'get');
  });

  test('authorization annotations: forbid with its reason; an authorizer failure says only internal error', () => {
    const denied = audit('Metadata');
    denied.a.identify(alice, undefined, info(), undefined);
    denied.a.authorized({ decision: 'no-opinion', reason: 'no rule' });
    denied.a.annotate('example.com/note', 'n');
    denied.a.complete(403);
    assert.deepEqual(denied.events[1]!.annotations, { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': 'no rule', 'example.com/note': 'n' });
    assert.equal('annotations' in denied.events[0]!, false);
    const failed = audit('Metadata');
    failed.a.identify(alice, undefined, info(), undefined);
    failed.a.authorized({ decision: 'no-opinion', reason: 'webhook said', error: 'webhook down' });
    failed.a.complete(500);
    assert.deepEqual(failed.events[1]!.annotations, { 'authorization.k8s.io/reason': 'internal error' });
    // An allow that carries an error is still an allow.
    const allowed = audit('Metadata');
    allowed.a.identify(alice, undefined, info(), undefined);
    allowed.a.authorized({ decision: 'allow', reason: 'ok', error: 'ignored' });
    allowed.a.complete(200);
    assert.deepEqual(allowed.events[1]!.annotations, { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'ok' });
  });
});

describe('AuditLog', () => {
  test('one JSON line per event, appended to a file only its owner may read; each event counted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-log-'));
    try {
      const path = join(dir, 'audit.log');
      writeFileSync(path, '{"earlier":true}\n', { mode: 0o600 });
      let counted = 0;
      const log = new AuditLog(path, { rules: [] }, { ...noopAuditObserver, event: () => void counted++ });
      log.write({ a: 1 });
      log.write({ b: 'x' });
      await log.close();
      assert.equal(readFileSync(path, 'utf8'), '{"earlier":true}\n{"a":1}\n{"b":"x"}\n');
      assert.equal(counted, 2);
      const fresh = join(dir, 'fresh.log');
      const other = new AuditLog(fresh, { rules: [] });
      other.write({});
      await other.close();
      assert.equal(statSync(fresh).mode & 0o777, 0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a log that cannot be written reports the error instead of throwing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-log-'));
    try {
      let errors = 0;
      // A directory cannot be opened for appending.
      const log = new AuditLog(dir, { rules: [] }, { ...noopAuditObserver, error: () => void errors++ });
      for (let i = 0; i < 100 && errors === 0; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(errors, 1);
      void log;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the level is decided for the acting user: a policy rule for the impersonated user applies', () => {
    const events: Event[] = [];
    const policy: AuditPolicy = { rules: [{ level: 'None', users: ['bob'] }, { level: 'Metadata' }] };
    const log = { policy, write: (e: object) => events.push(e as Event) } as unknown as AuditLog;
    const req = { url: '/x', method: 'GET', ip: '::1', headers: {} } as unknown as HttpRequest;
    new RequestAudit(log, 'id', req, new Date()).identify(alice, { username: 'bob', groups: [] }, info(), undefined);
    assert.equal(events.length, 0);
    new RequestAudit(log, 'id', req, new Date()).identify(alice, undefined, info(), undefined);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.userAgent, '', 'no User-Agent: empty');
  });
});
