import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasPrefix } from './key-prefix.js';

test('hasPrefix answers as startsWith does, wide characters and empty strings included', () => {
  const samples = ['', '/', '/registry/', '/registry/a', '/registry/ab', '/registry', '/registrx/', '/registry/\u{1f600}', '/registry/\uffff', '/registry/\ud800', 'x/registry/'];
  for (const key of samples) for (const prefix of samples) assert.equal(hasPrefix(key, prefix), key.startsWith(prefix), `${JSON.stringify(key)} under ${JSON.stringify(prefix)}`);
});
