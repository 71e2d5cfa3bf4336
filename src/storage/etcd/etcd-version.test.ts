// The early-progress workaround is decided by the etcd version the cluster reports.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { earlyProgressAnswers, oldestVersion } from './etcd-version.js';

test('etcd versions that may answer a progress request before a new watcher caught up', () => {
  for (const v of ['3.3.27', '3.4.0', '3.4.23', '3.4.24', '3.5.0', '3.5.7', 'v3.5.7', undefined, '', 'garbage', '2.3.8']) {
    assert.equal(earlyProgressAnswers(v), true, String(v));
  }
  for (const v of ['3.4.25', '3.4.34', '3.5.8', '3.5.17', '3.6.0', 'v3.6.4', '4.0.0']) assert.equal(earlyProgressAnswers(v), false, v);
});

test('a cluster mid-upgrade is judged by its oldest member', () => {
  assert.equal(oldestVersion(undefined, '3.5.9'), '3.5.9');
  assert.equal(oldestVersion('3.5.9', '3.4.23'), '3.4.23');
  assert.equal(oldestVersion('3.4.23', '3.5.9'), '3.4.23');
  assert.equal(oldestVersion('3.5.10', '3.5.9'), '3.5.9');
});
