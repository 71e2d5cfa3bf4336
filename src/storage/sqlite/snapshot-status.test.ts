import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resourceOfKey } from './snapshot-status.js';

test('a key names its resource: named groups, namespaced keys and core kinds', () => {
  assert.equal(resourceOfKey('/registry/networking.platform.io/servicecidrs/a'), 'servicecidrs.networking.platform.io');
  assert.equal(resourceOfKey('/registry/networking.platform.io/ipaddresses/10.0.0.1'), 'ipaddresses.networking.platform.io');
  assert.equal(resourceOfKey('/registry/events/default/kubernetes.17f0'), 'events');
  assert.equal(resourceOfKey('/registry/example.com/widgets/ns/w'), 'widgets.example.com');
  assert.equal(resourceOfKey('/elsewhere/x'), '/elsewhere/');
});
