// The 409 of a conflicting apply, worded as kube words it (structured-merge-diff's Conflicts and
// kube's getConflictMessage): one conflict on one line; several grouped by manager in manager
// order, each with its paths; a manager described with its subresource and, for an updater, the
// apiVersion it wrote with; one FieldManagerConflict cause per path. Pinned here (issue #35):
// the field manager's tests show one manager's conflicts only.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyConflictError, describeManager, type FieldConflict } from './conflict-error.js';
import { FieldSet, formatPath } from './field-set.js';
import type { Ownership } from './managed-fields-codec.js';

const owner = (manager: string, operation: 'Apply' | 'Update', subresource = ''): Ownership => ({ manager, operation, apiVersion: 'networking.platform.io/v1', subresource, set: new FieldSet() });

test('a manager is its quoted name, with its subresource, and the apiVersion an updater wrote with', () => {
  assert.equal(describeManager(owner('kubectl', 'Apply')), '"kubectl"');
  assert.equal(describeManager(owner('kubectl', 'Update')), '"kubectl" using networking.platform.io/v1');
  assert.equal(describeManager(owner('ctl', 'Apply', 'status')), '"ctl" with subresource "status"');
  assert.equal(describeManager(owner('ctl', 'Update', 'status')), '"ctl" with subresource "status" using networking.platform.io/v1');
});

test('paths read as kube prints them: fields, keys, values, indexes', () => {
  assert.equal(formatPath(['f:spec', 'f:cidrs']), '.spec.cidrs');
  assert.equal(formatPath(['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}', 'f:name']), '.spec.ports[port=80,protocol="TCP"].name');
  assert.equal(formatPath(['f:metadata', 'f:finalizers', 'v:"a"']), '.metadata.finalizers[="a"]');
  assert.equal(formatPath(['f:list', 'i:3']), '.list[3]');
});

test('several conflicts are grouped by manager, in manager order, with one cause per path', () => {
  const conflicts: FieldConflict[] = [
    { id: 'b-id', owner: owner('zeta', 'Update'), path: ['f:spec', 'f:cidrs'] },
    { id: 'a-id', owner: owner('alpha', 'Apply', 'status'), path: ['f:metadata', 'f:labels', 'f:x'] },
    { id: 'b-id', owner: owner('zeta', 'Update'), path: ['f:metadata', 'f:labels', 'f:y'] },
  ];
  const err = applyConflictError(conflicts);
  assert.equal(err.code, 409);
  assert.equal(err.reason, 'Conflict');
  assert.equal(
    err.message,
    'Apply failed with 3 conflicts: conflicts with "alpha" with subresource "status":\n- .metadata.labels.x\nconflicts with "zeta" using networking.platform.io/v1:\n- .spec.cidrs\n- .metadata.labels.y',
  );
  assert.deepEqual(err.status.details?.causes, [
    { reason: 'FieldManagerConflict', message: 'conflict with "alpha" with subresource "status"', field: '.metadata.labels.x' },
    { reason: 'FieldManagerConflict', message: 'conflict with "zeta" using networking.platform.io/v1', field: '.spec.cidrs' },
    { reason: 'FieldManagerConflict', message: 'conflict with "zeta" using networking.platform.io/v1', field: '.metadata.labels.y' },
  ]);
  const one = applyConflictError([conflicts[1]!]);
  assert.equal(one.message, 'Apply failed with 1 conflict: conflict with "alpha" with subresource "status": .metadata.labels.x');
});
