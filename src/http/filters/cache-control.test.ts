// Every answer of the request path says `Cache-Control: no-cache, private` (kube's
// WithCacheControl), refusals included, unless the handler sets its own. Pinned here (issue #35):
// no unit test ran the filter.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forbiddenPath } from '../../apimachinery/status-error.js';
import { cacheControlFilter } from './cache-control.js';
import { compose } from './filter.js';
import { fakeExchange } from './test-state.js';

test('an answer is not to be cached by anyone but its client, who must revalidate', async () => {
  const x = fakeExchange();
  await compose([cacheControlFilter], async () => {})(x.state);
  assert.equal(x.headers['cache-control'], 'no-cache, private');
});

test('a refusal after it carries it too; a handler may set its own', async () => {
  const refused = fakeExchange();
  await assert.rejects(compose([cacheControlFilter], async () => {
    throw forbiddenPath('no');
  })(refused.state));
  assert.equal(refused.headers['cache-control'], 'no-cache, private');
  const cached = fakeExchange();
  await compose([cacheControlFilter], async (s) => void s.reply.header('Cache-Control', 'public, immutable'))(cached.state);
  assert.equal(cached.headers['cache-control'], 'public, immutable');
});
