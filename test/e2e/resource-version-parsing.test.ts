// resourceVersions are unsigned 64-bit integers read exactly (never rounded through a float):
// in query parameters, continue tokens and object bodies, over real HTTPS.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessServer } from './in-process-server.js';
import type { HttpResult, TestServer } from './harness.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const ABOVE_2_53 = '9007199254740993';
const MAX_UINT64 = '18446744073709551615';

function assertStatus(r: HttpResult, code: number, message: string | RegExp): void {
  assert.equal(r.status, code, r.text);
  assert.equal(r.json?.kind, 'Status', r.text);
  if (typeof message === 'string') assert.equal(r.json.message, message);
  else assert.match(r.json.message, message);
}

const parseError = (rv: string, why: string) => `resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": ${why}`;

describe('resourceVersion parsing', () => {
  let server: TestServer;
  let current = '';
  before(async () => {
    server = await startInProcessServer();
    const r = await server.request('POST', SC, { body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'a' }, spec: { cidrs: ['10.0.0.0/24'] } } });
    assert.equal(r.status, 201, r.text);
    current = r.json.metadata.resourceVersion;
  });
  after(async () => {
    await server?.stop();
  });

  test('values above 2^53 and up to 2^64-1 are too large, printed exactly', async () => {
    for (const rv of [ABOVE_2_53, '9007199254740992', MAX_UINT64, `000${ABOVE_2_53}`]) {
      const exact = BigInt(rv).toString();
      const tooLarge = new RegExp(`^Timeout: Too large resource version: ${exact}, current: \\d+$`);
      assertStatus(await server.request('GET', `${SC}/a?resourceVersion=${rv}`), 504, tooLarge);
      assertStatus(await server.request('GET', `${SC}?resourceVersion=${rv}`), 504, tooLarge);
      assertStatus(await server.request('GET', `${SC}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`), 504, tooLarge);
      assertStatus(await server.request('GET', `${SC}?resourceVersion=${rv}&resourceVersionMatch=Exact`), 504, tooLarge);
    }
  });

  test('what is not a uint64 is a 400 in strconv.ParseUint words', async () => {
    for (const [rv, why] of [
      ['18446744073709551616', 'value out of range'],
      ['99999999999999999999999', 'value out of range'],
      ['abc', 'invalid syntax'],
      ['-1', 'invalid syntax'],
      ['+1', 'invalid syntax'],
      ['1e3', 'invalid syntax'],
      ['1.0', 'invalid syntax'],
      [' 1', 'invalid syntax'],
    ] as const) {
      const q = encodeURIComponent(rv);
      assertStatus(await server.request('GET', `${SC}/a?resourceVersion=${q}`), 400, parseError(rv, why));
      assertStatus(await server.request('GET', `${SC}?resourceVersion=${q}`), 400, parseError(rv, why));
      assertStatus(await server.request('GET', `${SC}?watch=1&resourceVersion=${q}`), 400, parseError(rv, why));
    }
  });

  test('a continue token with a revision above 2^53 is too large, printed exactly', async () => {
    const token = Buffer.from(`{"v":"meta.k8s.io/v1","rv":${ABOVE_2_53},"start":"a\\u0000"}`).toString('base64url');
    assertStatus(await server.request('GET', `${SC}?limit=1&continue=${token}`), 504, new RegExp(`^Timeout: Too large resource version: ${ABOVE_2_53}, current: \\d+$`));
  });

  test('an update body: a resourceVersion above 2^53 is a conflict, a non-uint64 a 400, a leading zero the same version', async () => {
    const body = (rv: string) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'a', resourceVersion: rv, labels: { v: rv.length.toString() } }, spec: { cidrs: ['10.0.0.0/24'] } });
    const big = await server.request('PUT', `${SC}/a`, { body: body(ABOVE_2_53) });
    assert.equal(big.status, 409, big.text);
    assertStatus(await server.request('PUT', `${SC}/a`, { body: body('abc') }), 400, parseError('abc', 'invalid syntax'));
    assertStatus(await server.request('PUT', `${SC}/a`, { body: body('18446744073709551616') }), 400, parseError('18446744073709551616', 'value out of range'));
    const patched = await server.request('PATCH', `${SC}/a`, { body: { metadata: { resourceVersion: ABOVE_2_53 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 409, patched.text);
    const same = await server.request('PUT', `${SC}/a`, { body: body(`00${current}`) });
    assert.equal(same.status, 200, same.text);
  });
});
