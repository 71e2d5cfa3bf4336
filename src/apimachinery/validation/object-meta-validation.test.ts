import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldPath, fieldErrorText } from '../field-error.js';
import { nameIsDNSSubdomain } from './names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './object-meta-validation.js';

const meta = FieldPath.root('metadata');
const texts = (errs: ReturnType<typeof validateObjectMeta>) => errs.map(fieldErrorText);

describe('ObjectMeta validation', () => {
  test('name or generateName is required', () => {
    assert.deepEqual(texts(validateObjectMeta({}, false, nameIsDNSSubdomain, meta)), ['metadata.name: Required value: name or generateName is required']);
  });

  test('namespace is forbidden on cluster-scoped kinds; negative generation', () => {
    assert.deepEqual(texts(validateObjectMeta({ name: 'a', namespace: 'x', generation: -1 }, false, nameIsDNSSubdomain, meta)), [
      'metadata.namespace: Forbidden: not allowed on this type',
      'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  test('labels, annotations, owner references and finalizers', () => {
    const errs = texts(
      validateObjectMeta(
        {
          name: 'a',
          labels: { 'bad key!': 'v', ok: 'bad value!' },
          annotations: { 'Example.com/Fine': 'x', big: 'x'.repeat(256 * 1024) },
          ownerReferences: [
            { apiVersion: 'v1', kind: 'A', name: 'a', uid: '1', controller: true },
            { apiVersion: 'g/', kind: '', name: 'b', uid: '', controller: true },
          ],
          finalizers: ['orphan', 'foregroundDeletion'],
        },
        false,
        nameIsDNSSubdomain,
        meta,
      ),
    );
    assert.match(errs[0]!, /^metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters/);
    assert.match(errs[1]!, /^metadata.labels: Invalid value: "bad value!": a valid label must be an empty string/);
    assert.equal(errs[2], 'metadata.annotations: Too long: must have at most 262144 bytes');
    assert.equal(errs[3], 'metadata.ownerReferences.apiVersion: Invalid value: "g/": version must not be empty');
    assert.equal(errs[4], 'metadata.ownerReferences.kind: Invalid value: "": must not be empty');
    assert.equal(errs[5], 'metadata.ownerReferences.uid: Invalid value: "": must not be empty');
    assert.match(errs[6]!, /Only one reference can have Controller set to true. Found "true" in references for A\/a and \/b$/);
    assert.equal(errs[7], 'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set');
    assert.equal(errs.length, 8);
  });

  test('update: immutable fields, fractional timestamps are not a change, no new finalizers while deleting', () => {
    const old = { name: 'a', uid: 'u1', creationTimestamp: '2026-11-22T08:28:51Z', deletionTimestamp: '2026-11-22T09:00:00Z', finalizers: ['a/b'], generation: 2 };
    assert.deepEqual(
      texts(validateObjectMetaUpdate({ ...old, creationTimestamp: '2026-11-22T08:28:51.000Z', deletionTimestamp: '2026-11-22T09:00:00.000Z' }, old, meta)),
      [],
    );
    assert.deepEqual(texts(validateObjectMetaUpdate({ ...old, uid: 'u2', generation: 1, finalizers: ['a/b', 'c/d'] }, old, meta)), [
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"c/d"}',
      'metadata.generation: Invalid value: 1: must not be decremented',
      'metadata.uid: Invalid value: "u2": field is immutable',
    ]);
  });

  test('many controllers: one error in upstream words naming the first two and counting the rest, in upstream position', () => {
    const refs = Array.from({ length: 5 }, (_, i) => ({ apiVersion: 'v1', kind: 'K', name: `n${i}`, uid: i === 3 ? '' : `u${i}`, controller: true }));
    const errs = texts(validateObjectMeta({ name: 'a', ownerReferences: refs }, false, nameIsDNSSubdomain, meta));
    assert.equal(errs.length, 2);
    assert.match(errs[0]!, /Only one reference can have Controller set to true. Found "true" in references for K\/n0 and K\/n1 \(and 3 more\)$/);
    assert.equal(errs[1], 'metadata.ownerReferences.uid: Invalid value: "": must not be empty');
  });

  test('the cost is linear: 20,000 controllers make one error whose rendered value is bounded', () => {
    const refs = Array.from({ length: 20_000 }, (_, i) => ({ apiVersion: 'v1', kind: 'K', name: `n${i}`, uid: `u${i}`, controller: true }));
    const errs = texts(validateObjectMeta({ name: 'a', ownerReferences: refs }, false, nameIsDNSSubdomain, meta));
    assert.equal(errs.length, 1);
    assert.ok(errs[0]!.length < 2048, `${errs[0]!.length} characters`);
    assert.match(errs[0]!, /\.\.\.\(\d+ more characters\): Only one reference can have Controller set to true. Found "true" in references for K\/n0 and K\/n1 \(and 19998 more\)$/);
  });
});
