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
