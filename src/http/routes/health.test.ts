// Health endpoint output, byte for byte as kube-apiserver writes it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alwaysOk, healthResponse, type HealthChecks } from './health.js';

const failing = (name: string, reason: string) => ({ name, check: () => reason });
const q = (s = '') => new URLSearchParams(s);

test('passing: "ok", or every check with ?verbose', async () => {
  const checks: HealthChecks = { livez: [alwaysOk('ping'), alwaysOk('log')], readyz: [alwaysOk('ping'), alwaysOk('etcd'), alwaysOk('poststarthook/rbac/bootstrap-roles')] };
  assert.deepEqual(await healthResponse(checks, 'livez', '', q()), { code: 200, body: 'ok' });
  assert.deepEqual(await healthResponse(checks, 'readyz', '', q('verbose')), {
    code: 200,
    body: '[+]ping ok\n[+]etcd ok\n[+]poststarthook/rbac/bootstrap-roles ok\nreadyz check passed\n',
  });
  assert.deepEqual(await healthResponse(checks, 'healthz', '', q('verbose=1')), { code: 200, body: '[+]ping ok\n[+]log ok\nhealthz check passed\n' });
});

test('failing: 500, every check listed, the reason withheld and given only to the log', async () => {
  const heard: string[] = [];
  const checks: HealthChecks = { livez: [], readyz: [alwaysOk('ping'), failing('etcd', 'database or disk is full'), alwaysOk('shutdown')] };
  assert.deepEqual(await healthResponse(checks, 'readyz', '', q(), (n, r) => heard.push(`${n}: ${r}`)), {
    code: 500,
    body: '[+]ping ok\n[-]etcd failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n',
  });
  assert.deepEqual(heard, ['etcd: database or disk is full']);
});

test('?exclude skips checks (repeated or comma-separated) and warns about names that match none', async () => {
  const checks: HealthChecks = { livez: [], readyz: [alwaysOk('ping'), failing('etcd', 'down'), failing('shutdown', 'stopping')] };
  assert.deepEqual(await healthResponse(checks, 'readyz', '', q('exclude=etcd&exclude=shutdown')), { code: 200, body: 'ok' });
  assert.deepEqual(await healthResponse(checks, 'readyz', '', q('verbose&exclude=etcd,shutdown&exclude=nope&exclude=also')), {
    code: 200,
    body: '[+]ping ok\n[+]etcd excluded: ok\n[+]shutdown excluded: ok\nwarn: some health checks cannot be excluded: no matches for "also","nope"\nreadyz check passed\n',
  });
});

test('one check at its own path, with its reason; an unknown one is undefined (404)', async () => {
  const checks: HealthChecks = { livez: [alwaysOk('ping')], readyz: [alwaysOk('poststarthook/rbac/bootstrap-roles'), failing('etcd-readiness', 'last write failed: database or disk is full')] };
  assert.deepEqual(await healthResponse(checks, 'readyz', 'poststarthook/rbac/bootstrap-roles', q()), { code: 200, body: 'ok' });
  assert.deepEqual(await healthResponse(checks, 'readyz', 'etcd-readiness', q()), { code: 500, body: 'internal server error: last write failed: database or disk is full\n' });
  assert.equal(await healthResponse(checks, 'livez', 'etcd-readiness', q()), undefined);
  const throwing: HealthChecks = { livez: [{ name: 'etcd', check: () => Promise.reject(new Error('boom')) }], readyz: [] };
  assert.equal((await healthResponse(throwing, 'livez', '', q()))?.code, 500);
});
