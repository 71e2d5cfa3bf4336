import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../apimachinery/status-error.js';
import { requestInfoFilter } from './request-info.js';
import { fakeExchange } from './test-state.js';

const run = async (method: string, url: string) => {
  const x = fakeExchange({ method, url });
  await requestInfoFilter(x.state, async () => {});
  return x;
};

test('resolves the request: decoded path, info, audit id, public and long-running', async () => {
  const x = await run('GET', '/apis/certificates.platform.io/v1beta1/clustertrustbundles/example.com%3Asigner%3Ax?pretty=true');
  assert.equal(x.state.info.name, 'example.com:signer:x');
  assert.equal(x.state.info.verb, 'get');
  assert.equal(x.state.pretty, true);
  assert.equal(x.headers['audit-id'], 'test-request');
  assert.equal(x.state.longRunning, false);

  assert.equal((await run('GET', '/apis/networking.platform.io/v1/servicecidrs/%63n-x')).state.info.name, 'cn-x');
  assert.equal((await run('GET', '/apis/networking.platform.io/v1/servicecidrs?watch=1')).state.longRunning, true);
  assert.equal((await run('GET', '/readyz')).state.isPublic, true);
  // A decoded slash separates segments, as in kube (the name is then "a", the subresource "b").
  const slash = (await run('GET', '/apis/networking.platform.io/v1/servicecidrs/a%2Fb')).state.info;
  assert.deepEqual([slash.name, slash.subresource], ['a', 'b']);
  assert.equal((await run('GET', '/apis/networking.platform.io/v1/servicecidrs/%E2%82%AC')).state.info.name, '€');
});

test('a malformed escape is a 400 Status', async () => {
  await assert.rejects(run('GET', '/apis/%zz'), (err: unknown) => isStatusError(err) && err.status.code === 400 && err.status.message === 'invalid URL escape "%zz"');
  await assert.rejects(run('GET', '/apis/a%4'), (err: unknown) => isStatusError(err) && err.status.code === 400);
});

test('the query as Go parses it, the body only when it is bytes, and a non-resource request is never long-running', async () => {
  const x = await run('GET', '/apis/networking.platform.io/v1/servicecidrs?limit=5&labelSelector=a%3Db');
  assert.equal(x.state.path, '/apis/networking.platform.io/v1/servicecidrs');
  assert.equal(x.state.query.get('limit'), '5');
  assert.equal(x.state.query.get('labelSelector'), 'a=b');
  assert.equal(x.state.info.verb, 'list');
  assert.equal(x.state.isPublic, false);
  assert.equal(x.state.pretty, false);

  const bare = await run('GET', '/version');
  assert.equal(bare.state.path, '/version');
  assert.equal([...bare.state.query].length, 0);
  assert.equal(bare.state.isPublic, true);
  assert.equal((await run('GET', '/metrics?watch=true')).state.longRunning, false);

  const body = Buffer.from('{}');
  const withBody = fakeExchange({ method: 'POST', url: '/apis/networking.platform.io/v1/servicecidrs', body });
  await requestInfoFilter(withBody.state, async () => {});
  assert.equal(withBody.state.body, body);
  const parsed = fakeExchange({ method: 'POST', url: '/apis/networking.platform.io/v1/servicecidrs' });
  (parsed.state.req as { body: unknown }).body = { already: 'parsed' };
  await requestInfoFilter(parsed.state, async () => {});
  assert.equal(parsed.state.body, undefined);
});
