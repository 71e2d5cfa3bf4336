// What makes an applied configuration unappliable, worded as structured-merge-diff words it:
// associative-list items that are not maps or omit a key, and the same key or set value twice,
// found at any depth with the path to them; and the path element naming a list item (keys sorted,
// values as JSON). Pinned here (issue #35): the field manager's tests show one case each.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyConfigErrors, ListKeyError, listItemElement } from './typed-ops.js';
import type { ListType, MapType, TypeNode } from './typed-schema.js';

const scalar: TypeNode = { kind: 'scalar' };
const struct = (fields: Record<string, TypeNode>, atomic = false): MapType => ({
  kind: 'map',
  atomic,
  field: (name) => fields[name],
  isNamedField: (name) => name in fields,
});
const keyed = (keys: string[], element: TypeNode): ListType => ({ kind: 'list', atomic: false, keys, element });
const set: ListType = { kind: 'list', atomic: false, keys: [], element: scalar };
const atomicList: ListType = { kind: 'list', atomic: true, keys: ['name'], element: struct({ name: scalar }) };

const port = struct({ port: scalar, protocol: scalar, name: scalar, tags: set });
const root = struct({
  spec: struct({ ports: keyed(['protocol', 'port'], port), finalizers: set, frozen: atomicList, opaque: struct({ ports: keyed(['port'], port) }, true) }),
});

test('list items are named by their keys, sorted, or by their value', () => {
  assert.equal(listItemElement(keyed(['protocol', 'port'], port), { protocol: 'TCP', port: 80, name: 'x' }), 'k:{"port":80,"protocol":"TCP"}');
  assert.equal(listItemElement(set, 'a'), 'v:"a"');
  assert.equal(listItemElement(set, 3), 'v:3');
  assert.throws(() => listItemElement(keyed(['port'], port), 'x'), (e: unknown) => e instanceof ListKeyError && e.message === 'associative list with keys has an element that is not a map');
  assert.throws(() => listItemElement(keyed(['port'], port), { port: null }), /omits key field "port"/);
  assert.throws(() => listItemElement(keyed(['port', 'protocol'], port), { port: 1 }), (e: unknown) => e instanceof ListKeyError && e.message === 'associative list with keys has an element that omits key field "protocol"');
});

test('a configuration without problems has none', () => {
  const ok = { spec: { ports: [{ port: 80, protocol: 'TCP', tags: ['a', 'b'] }, { port: 80, protocol: 'UDP' }], finalizers: ['x', 'y'], unknown: [1, 1] } };
  assert.deepEqual(applyConfigErrors(ok, root), []);
});

test('items that are not maps or omit a key, and duplicates, at any depth, each with its path', () => {
  const bad = {
    spec: {
      ports: [
        { port: 80, protocol: 'TCP', tags: ['a', 'a'] },
        { port: 80, protocol: 'TCP' },
        { port: 81 },
        'nope',
      ],
      finalizers: ['x', 'y', 'x'],
    },
  };
  assert.deepEqual(applyConfigErrors(bad, root), [
    '.spec.ports[port=80,protocol="TCP"].tags: duplicate entries for key [="a"]',
    '.spec.ports: duplicate entries for key [port=80,protocol="TCP"]',
    '.spec.ports: element 2: associative list with keys has an element that omits key field "protocol"',
    '.spec.ports: element 3: associative list with keys has an element that is not a map',
    '.spec.finalizers: duplicate entries for key [="x"]',
  ]);
});

test('atomic lists and atomic maps are not looked into', () => {
  const cfg = { spec: { frozen: [{ name: 'a' }, { name: 'a' }, 'x'], opaque: { ports: [{ port: 1 }, { port: 1 }] } } };
  assert.deepEqual(applyConfigErrors(cfg, root), []);
});

test('nulls and values of the wrong shape are no problem of the configuration walk (decoding reports those)', () => {
  assert.deepEqual(applyConfigErrors({ spec: null }, root), []);
  assert.deepEqual(applyConfigErrors({ spec: { ports: null, finalizers: 'x', opaque: null } }, root), []);
  assert.deepEqual(applyConfigErrors({ spec: { ports: { port: 1 } } }, root), []);
  assert.deepEqual(applyConfigErrors({ spec: 'text' }, root), []);
  assert.deepEqual(applyConfigErrors(null, root), []);
});
