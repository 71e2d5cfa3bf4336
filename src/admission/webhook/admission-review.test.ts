// Reading a webhook's answer as kube does: Go's JSON syntax errors, client-go's HTTP error texts,
// the AdmissionReview checks (uid, kind, patch fields) and ToStatusErr's rejection Status.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readResponse, rejection } from './admission-review.js';
import { goJsonSyntaxError } from './go-json-syntax.js';

const ok = (body: unknown, statusCode = 200, contentType = 'application/json') => ({ statusCode, contentType, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) });
const review = (response: unknown, apiVersion = 'admission.k8s.io/v1') => ({ apiVersion, kind: 'AdmissionReview', response });

test('Go\'s encoding/json syntax errors', () => {
  assert.equal(goJsonSyntaxError(Buffer.from('{"this is": not json at all')), "invalid character 'o' in literal null (expecting 'u')");
  assert.equal(goJsonSyntaxError(Buffer.from('')), 'unexpected end of JSON input');
  assert.equal(goJsonSyntaxError(Buffer.from('<html>')), "invalid character '<' looking for beginning of value");
  assert.equal(goJsonSyntaxError(Buffer.from('{"a":1} x')), "invalid character 'x' after top-level value");
  assert.equal(goJsonSyntaxError(Buffer.from('{"a" 1}')), "invalid character '1' after object key");
  assert.equal(goJsonSyntaxError(Buffer.from('[1 2]')), "invalid character '2' after array element");
  assert.equal(goJsonSyntaxError(Buffer.from('"\\x"')), "invalid character 'x' in string escape code");
  assert.equal(goJsonSyntaxError(Buffer.from('{"a":[1,{"b":true}]}')), undefined);
});

test('an answer that is not an AdmissionReview is a failed call, worded as client-go words it', () => {
  const read = (r: ReturnType<typeof ok>) => readResponse(r, 'v1', 'u1', false);
  assert.deepEqual(read(ok('{"this is": not json at all')), { reason: "failed to call webhook: couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')", code: 503 });
  assert.deepEqual(read(ok('')), { reason: 'failed to call webhook: 0-length response with status code: 200 and content type: application/json', code: 503 });
  assert.deepEqual(read(ok('boom', 500, 'text/plain')), { reason: 'failed to call webhook: an error on the server ("boom") has prevented the request from succeeding', code: 500 });
  assert.deepEqual(read(ok({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'nope', code: 429 }, 429)), { reason: 'failed to call webhook: nope', code: 429 });
  assert.deepEqual(read(ok('x', 404, 'application/json')), { reason: 'failed to call webhook: the server could not find the requested resource', code: 404 });
  assert.deepEqual(read(ok(review({ uid: 'u1', allowed: true }, 'admission.k8s.io/v1beta1'))), { reason: 'failed to call webhook: converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion', code: 503 });
  assert.deepEqual(read(ok({ response: { uid: 'u1', allowed: 'yes' } })), { reason: 'failed to call webhook: json: cannot unmarshal string into Go struct field AdmissionResponse.response.allowed of type bool', code: 503 });
});

test('the review itself is checked as VerifyAdmissionResponse checks it', () => {
  assert.deepEqual(readResponse(ok(review(null)), 'v1', 'u1', false), { reason: 'received invalid webhook response: webhook response was absent', code: 503 });
  assert.deepEqual(readResponse(ok(review({ uid: 'u2', allowed: true })), 'v1', 'u1', false), { reason: 'received invalid webhook response: expected response.uid="u1", got "u2"', code: 503 });
  // A webhook that leaves out apiVersion and kind: the classic mistake, in kube's words.
  assert.deepEqual(readResponse(ok({ response: { uid: 'u1', allowed: true } }), 'v1', 'u1', false), {
    reason: 'received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /, Kind=',
    code: 503,
  });
  const patch = Buffer.from('[]').toString('base64');
  assert.deepEqual(readResponse(ok(review({ uid: 'u1', allowed: true, patch })), 'v1', 'u1', false), { reason: 'received invalid webhook response: validating webhook may not return response.patch', code: 503 });
  assert.deepEqual(readResponse(ok(review({ uid: 'u1', allowed: true, patch })), 'v1', 'u1', true), { reason: 'received invalid webhook response: webhook returned response.patch but not response.patchType', code: 503 });
  assert.deepEqual(readResponse(ok(review({ uid: 'u1', allowed: true, patch: 'a$' })), 'v1', 'u1', true), { reason: 'failed to call webhook: illegal base64 data at input byte 1', code: 503 });
  // v1beta1 is lenient: no uid or kind check, and a patch is a JSONPatch.
  const beta = readResponse(ok({ response: { allowed: true, patch } }), 'v1beta1', 'u1', true);
  assert.ok(!('reason' in beta) && beta.patchType === 'JSONPatch' && beta.allowed);
});

test('a rejection is the webhook\'s Status behind kube\'s "denied the request", never below 400', () => {
  assert.deepEqual(rejection('deny.example.com', { message: 'no way', code: 403, reason: 'Forbidden' }), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'admission webhook "deny.example.com" denied the request: no way',
    reason: 'Forbidden',
    code: 403,
  });
  assert.equal(rejection('w', { code: 200 }).code, 400);
  assert.equal(rejection('w', undefined).message, 'admission webhook "w" denied the request without explanation');
  assert.equal(rejection('w', { reason: 'Conflict' }).message, 'admission webhook "w" denied the request: Conflict');
});
