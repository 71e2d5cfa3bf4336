// Inputs whose checking used to cost more than their size: validation and error answers stay
// linear in the input and small (bounded causes, bounded rendered values), over real HTTPS.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessServer } from './in-process-server.js';
import type { TestServer } from './harness.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const scidr = (name: string, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name, ...metadata },
  spec: { cidrs: ['10.0.0.0/24'] },
});
const ref = (i: number, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Owner', name: `owner-${i}`, uid: `uid-${i}`, controller: true, ...extra });

describe('amplification', () => {
  let server: TestServer;
  before(async () => {
    server = await startInProcessServer();
  });
  after(async () => {
    await server?.stop();
  });

  test('2,500 controller owner references: one 422 with a small body', async () => {
    const body = JSON.stringify(scidr('many-controllers', { ownerReferences: Array.from({ length: 2500 }, (_, i) => ref(i)) }));
    assert.ok(body.length > 200_000, `a body of ${body.length} bytes`);
    const r = await server.request('POST', SC, { body });
    assert.equal(r.status, 422, r.text.slice(0, 500));
    assert.equal(r.json.reason, 'Invalid');
    assert.ok(r.text.length < 8 * 1024, `answer of ${r.text.length} bytes`);
    assert.equal(r.json.details.causes.length, 1);
    assert.equal(r.json.details.causes[0].field, 'metadata.ownerReferences');
    assert.match(r.json.message, /Only one reference can have Controller set to true\. Found "true" in references for Owner\/owner-0 and Owner\/owner-1 \(and 2498 more\)$/);
    assert.equal((await server.request('GET', `${SC}/many-controllers`)).status, 404);
  });

  test('the same on an update and a strategic merge patch', async () => {
    assert.equal((await server.request('POST', SC, { body: scidr('target') })).status, 201);
    const patch = JSON.stringify({ metadata: { ownerReferences: Array.from({ length: 2500 }, (_, i) => ref(i)) } });
    const r = await server.request('PATCH', `${SC}/target`, { body: patch, headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    assert.equal(r.status, 422, r.text.slice(0, 500));
    assert.ok(r.text.length < 8 * 1024, `answer of ${r.text.length} bytes`);
    const m = await server.request('PATCH', `${SC}/target`, { body: patch, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(m.status, 422, m.text.slice(0, 500));
    assert.ok(m.text.length < 8 * 1024, `answer of ${m.text.length} bytes`);
  });

  test('thousands of field errors: at most 100 causes, and the message counts the rest', async () => {
    const refs = Array.from({ length: 3000 }, (_, i) => ref(i, { kind: '', controller: false }));
    const r = await server.request('POST', SC, { body: scidr('many-errors', { ownerReferences: refs }) });
    assert.equal(r.status, 422, r.text.slice(0, 500));
    assert.equal(r.json.details.causes.length, 100);
    // Every reference has the same error text, so the message holds it once (duplicates removed, as upstream).
    assert.equal(r.json.message, 'ServiceCIDR.networking.platform.io "many-errors" is invalid: metadata.ownerReferences.kind: Invalid value: "": must not be empty');
    // Distinct errors: the message lists 100 and counts the rest.
    const labels = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`bad key ${i}`, 'v']));
    const l = await server.request('POST', SC, { body: scidr('many-labels', { labels }) });
    assert.equal(l.status, 422, l.text.slice(0, 500));
    assert.equal(l.json.details.causes.length, 100);
    assert.match(l.json.message, /^ServiceCIDR\.networking\.platform\.io "many-labels" is invalid: \[metadata\.labels: Invalid value: "bad key 0": .*, and 200 more errors\]$/);
    assert.ok(r.text.length < 32 * 1024, `answer of ${r.text.length} bytes`);
  });

  test('a long bad value is shown by its start, with the length left out', async () => {
    const r = await server.request('POST', SC, { body: scidr('long-label', { labels: { a: `x${'-'.repeat(200_000)}!` } }) });
    assert.equal(r.status, 422, r.text.slice(0, 500));
    assert.ok(r.text.length < 8 * 1024, `answer of ${r.text.length} bytes`);
    assert.match(r.json.details.causes[0].message, /^Invalid value: "x-{1022}\.\.\.\(198980 more characters\): must be no more than 63 characters$/);
  });

  test('long finalizer lists merge in linear time: strategic merge of 20,000 onto 20,000', async () => {
    const finalizers = (from: number) => Array.from({ length: 20_000 }, (_, i) => `example.com/f${from + i}`);
    assert.equal((await server.request('POST', SC, { body: scidr('fins', { finalizers: finalizers(0) }) })).status, 201);
    const r = await server.request('PATCH', `${SC}/fins`, {
      body: JSON.stringify({ metadata: { finalizers: finalizers(10_000), '$deleteFromPrimitiveList/finalizers': finalizers(0).slice(0, 5000) } }),
      headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
    });
    assert.equal(r.status, 200, r.text.slice(0, 500));
    assert.equal(r.json.metadata.finalizers.length, 25_000);
    assert.equal(r.json.metadata.finalizers[0], 'example.com/f5000');
    assert.equal(r.json.metadata.finalizers.at(-1), 'example.com/f29999');
    // Clean up: an object with finalizers would stay after the server stops caring.
    const clear = await server.request('PATCH', `${SC}/fins`, { body: { metadata: { finalizers: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(clear.status, 200);
  });
});
