// SelfSubjectRulesReview needs a namespace: kube's REST Create answers 400 "no namespace on
// request" when spec.namespace is empty, however the body says so (JSON, YAML, protobuf, no spec
// at all). With one, the rules come back with 201.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessServer } from './in-process-server.js';
import type { TestServer } from './harness.js';

const SSRR = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';
const TYPE = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview' };

/** `k8s\0` + runtime.Unknown{typeMeta, raw} around a SelfSubjectRulesReview's bytes. */
function protobufReview(raw: Buffer): Buffer {
  const field = (n: number, b: Buffer): Buffer => Buffer.concat([Buffer.from([(n << 3) | 2, b.length]), b]);
  const typeMeta = field(1, Buffer.concat([field(1, Buffer.from(TYPE.apiVersion)), field(2, Buffer.from(TYPE.kind))]));
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), typeMeta, field(2, raw)]);
}

let server: TestServer;
before(async () => {
  server = await startInProcessServer();
});
after(async () => {
  await server?.stop();
});

test('a SelfSubjectRulesReview without a namespace is a 400 "no namespace on request"', async () => {
  const bodies: [string, string | Buffer | object, string | undefined][] = [
    ['JSON, no spec', TYPE, undefined],
    ['JSON, empty spec', { ...TYPE, spec: {} }, undefined],
    ['JSON, empty namespace', { ...TYPE, spec: { namespace: '' } }, undefined],
    ['YAML, empty spec', 'apiVersion: authorization.k8s.io/v1\nkind: SelfSubjectRulesReview\nspec: {}\n', 'application/yaml'],
    ['protobuf, empty spec', protobufReview(Buffer.alloc(0)), 'application/vnd.kubernetes.protobuf'],
  ];
  for (const [name, body, contentType] of bodies) {
    const r = await server.request('POST', SSRR, { body, headers: contentType ? { 'Content-Type': contentType } : {} });
    assert.equal(r.status, 400, `${name}: ${r.text}`);
    assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'no namespace on request', reason: 'BadRequest', code: 400 }, name);
  }
  const ok = await server.request('POST', SSRR, { body: { ...TYPE, spec: { namespace: 'default' } } });
  assert.equal(ok.status, 201, ok.text);
  assert.deepEqual(ok.json.spec, { namespace: 'default' });
  assert.ok(ok.json.status.resourceRules.length > 0);
});
