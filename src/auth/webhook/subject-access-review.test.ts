// The SubjectAccessReview a webhook authorizer sends, and the status it reads back, as
// kube-apiserver 1.33 encodes and decodes them (Go's field order, omitempty, v1beta1's `group`,
// selectors passed on as requirements).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthorizationAttributes } from '../authorizer.js';
import { parseSarResponse, subjectAccessReviewBody, subjectAccessReviewSpec } from './subject-access-review.js';

const attrs = (over: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
  user: { username: 'alice', groups: ['devs', 'system:authenticated'], uid: 'u-1', extra: { scopes: ['a'] } },
  verb: 'list',
  isResourceRequest: true,
  path: '/apis/networking.platform.io/v1/servicecidrs',
  apiGroup: 'networking.platform.io',
  apiVersion: 'v1',
  resource: 'servicecidrs',
  subresource: 'status',
  namespace: 'ns',
  name: 'x',
  ...over,
});

describe('subjectAccessReviewSpec', () => {
  test('a resource request: every attribute in Go order, then the user', () => {
    const spec = subjectAccessReviewSpec(attrs());
    assert.equal(
      JSON.stringify(spec),
      JSON.stringify({
        resourceAttributes: { namespace: 'ns', verb: 'list', group: 'networking.platform.io', version: 'v1', resource: 'servicecidrs', subresource: 'status', name: 'x' },
        user: 'alice',
        groups: ['devs', 'system:authenticated'],
        extra: { scopes: ['a'] },
        uid: 'u-1',
      }),
    );
  });

  test('empty attributes and user fields are left out', () => {
    const spec = subjectAccessReviewSpec(attrs({ namespace: '', apiGroup: '', subresource: '', name: '', user: { username: '', groups: [], extra: {} } }));
    assert.equal(JSON.stringify(spec), JSON.stringify({ resourceAttributes: { verb: 'list', version: 'v1', resource: 'servicecidrs' } }));
  });

  test('a non-resource request: path and verb only', () => {
    assert.deepEqual(subjectAccessReviewSpec(attrs({ isResourceRequest: false, path: '/healthz', verb: 'get', user: { username: 'bob', groups: [] } })), {
      nonResourceAttributes: { path: '/healthz', verb: 'get' },
      user: 'bob',
    });
    assert.deepEqual(subjectAccessReviewSpec(attrs({ isResourceRequest: false, path: '', verb: '', user: { username: '', groups: [] } })), { nonResourceAttributes: {} });
  });

  test('field selectors become In / NotIn requirements; a malformed one narrows nothing', () => {
    const ra = (fieldSelector?: string) => (subjectAccessReviewSpec(attrs({ fieldSelector })) as { resourceAttributes: Record<string, unknown> }).resourceAttributes;
    assert.deepEqual(ra('metadata.name=a,spec.signerName!=b').fieldSelector, {
      requirements: [
        { key: 'metadata.name', operator: 'In', values: ['a'] },
        { key: 'spec.signerName', operator: 'NotIn', values: ['b'] },
      ],
    });
    assert.equal(ra('metadata.name').fieldSelector, undefined);
    assert.equal(ra('').fieldSelector, undefined);
    assert.equal(ra(undefined).fieldSelector, undefined);
  });

  test('label selectors become In / NotIn / Exists / DoesNotExist; Gt and Lt are dropped; a malformed one narrows nothing', () => {
    const ra = (labelSelector?: string) => (subjectAccessReviewSpec(attrs({ labelSelector })) as { resourceAttributes: Record<string, unknown> }).resourceAttributes;
    assert.deepEqual(ra('a=1,b==2,c!=3,d in (x,y),e notin (z),f,!g,n>1').labelSelector, {
      requirements: [
        { key: 'a', operator: 'In', values: ['1'] },
        { key: 'b', operator: 'In', values: ['2'] },
        { key: 'c', operator: 'NotIn', values: ['3'] },
        { key: 'd', operator: 'In', values: ['x', 'y'] },
        { key: 'e', operator: 'NotIn', values: ['z'] },
        { key: 'f', operator: 'Exists' },
        { key: 'g', operator: 'DoesNotExist' },
      ],
    });
    assert.equal(ra('n>1').labelSelector, undefined);
    assert.equal(ra('a in (').labelSelector, undefined);
    assert.equal(ra(undefined).labelSelector, undefined);
  });
});

describe('subjectAccessReviewBody', () => {
  const spec = subjectAccessReviewSpec(attrs({ user: { username: 'alice', groups: ['devs'] } }));

  test('v1: the review as kube encodes it', () => {
    assert.equal(
      subjectAccessReviewBody(spec, 'v1'),
      JSON.stringify({ kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { creationTimestamp: null }, spec, status: { allowed: false } }),
    );
  });

  test('v1beta1: groups is named group, where it stands', () => {
    const body = JSON.parse(subjectAccessReviewBody(spec, 'v1beta1')) as { apiVersion: string; spec: Record<string, unknown> };
    assert.equal(body.apiVersion, 'authorization.k8s.io/v1beta1');
    assert.deepEqual(Object.keys(body.spec), ['resourceAttributes', 'user', 'group']);
    assert.deepEqual(body.spec.group, ['devs']);
    const noGroups = JSON.parse(subjectAccessReviewBody(subjectAccessReviewSpec(attrs({ user: { username: 'a', groups: [] } })), 'v1beta1')) as { spec: Record<string, unknown> };
    assert.deepEqual(Object.keys(noGroups.spec), ['resourceAttributes', 'user']);
  });
});

describe('parseSarResponse', () => {
  test('the status fields, absent or null ones as their zero values', () => {
    assert.deepEqual(parseSarResponse('{"status":{"allowed":true,"reason":"ok"}}'), { allowed: true, denied: false, reason: 'ok', evaluationError: '' });
    assert.deepEqual(parseSarResponse('{"status":{"allowed":false,"denied":true,"evaluationError":"e","reason":null}}'), { allowed: false, denied: true, reason: '', evaluationError: 'e' });
    assert.deepEqual(parseSarResponse('{}'), { allowed: false, denied: false, reason: '', evaluationError: '' });
    assert.deepEqual(parseSarResponse('{"status":null}'), { allowed: false, denied: false, reason: '', evaluationError: '' });
    assert.deepEqual(parseSarResponse('{"status":{"allowed":null,"denied":null}}'), { allowed: false, denied: false, reason: '', evaluationError: '' });
  });

  test('anything else is a decoding error', () => {
    assert.throws(() => parseSarResponse('<html>'), { message: 'the webhook\'s answer is not JSON: "<html>"' });
    assert.throws(() => parseSarResponse('x'.repeat(100)), { message: `the webhook's answer is not JSON: "${'x'.repeat(80)}"` });
    assert.throws(() => parseSarResponse('[]'), { message: "the webhook's answer is not a SubjectAccessReview object" });
    assert.throws(() => parseSarResponse('null'), { message: "the webhook's answer is not a SubjectAccessReview object" });
    assert.throws(() => parseSarResponse('5'), { message: "the webhook's answer is not a SubjectAccessReview object" });
    assert.throws(() => parseSarResponse('"allowed"'), { message: "the webhook's answer is not a SubjectAccessReview object" });
    assert.throws(() => parseSarResponse('{"status":[]}'), { message: "the webhook's answer has a status that is not an object" });
    assert.throws(() => parseSarResponse('{"status":"yes"}'), { message: "the webhook's answer has a status that is not an object" });
    assert.throws(() => parseSarResponse('{"status":{"allowed":"true"}}'), { message: "the webhook's answer has a status.allowed that is not a boolean" });
    assert.throws(() => parseSarResponse('{"status":{"reason":5}}'), { message: "the webhook's answer has a status.reason that is not a string" });
  });
});
