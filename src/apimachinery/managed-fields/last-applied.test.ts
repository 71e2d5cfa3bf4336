// kubectl's move from client-side to server-side apply, as kube's lastAppliedManager and
// lastAppliedUpdater do it: the fields the last-applied annotation set that the live object still
// holds unchanged (none when the annotation is missing, empty, not JSON, or of another
// apiVersion), and the annotation kept in step with each apply while it exists. Pinned here
// (issue #35): the field manager's tests show one happy path.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commonSchemas } from '../common-schemas.js';
import type { KubeObject } from '../object-meta.js';
import { serviceCIDRs } from '../../resources/servicecidrs/index.js';
import { allowedConflictsFromLastApplied, LAST_APPLIED_ANNOTATION, syncLastApplied } from './last-applied.js';
import { TypedSchema } from './typed-schema.js';

const API_VERSION = 'networking.platform.io/v1';
const root = new TypedSchema({ ...commonSchemas, ...serviceCIDRs.schemas }).typeOf(serviceCIDRs.schemas[serviceCIDRs.schemaName]);
const withAnnotation = (text: string | undefined, rest: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: API_VERSION,
  kind: 'ServiceCIDR',
  metadata: { name: 'demo', labels: { a: '1', b: '1' }, ...(text === undefined ? {} : { annotations: { [LAST_APPLIED_ANNOTATION]: text } }) },
  spec: { cidrs: ['10.0.0.0/24'] },
  ...rest,
});

test('the fields the annotation set that live still holds unchanged are allowed', () => {
  const lastApplied = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo', labels: { a: '1', b: '0', gone: 'x' } }, spec: { cidrs: ['10.0.0.0/24'] } };
  const allowed = allowedConflictsFromLastApplied(withAnnotation(JSON.stringify(lastApplied)), API_VERSION, root);
  assert.deepEqual(allowed?.paths(), [
    ['f:apiVersion'],
    ['f:kind'],
    ['f:metadata', 'f:labels', 'f:a'],
    ['f:metadata', 'f:name'],
    ['f:spec', 'f:cidrs'],
  ]);
  // A field live holds that the annotation did not set (labels.b is modified, labels.gone removed).
  const added = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo' } };
  assert.deepEqual(allowedConflictsFromLastApplied(withAnnotation(JSON.stringify(added)), API_VERSION, root)?.paths(), [['f:apiVersion'], ['f:kind'], ['f:metadata', 'f:name']]);
});

test('no annotation, an empty one, one that is not a JSON object, or of another apiVersion: nothing is allowed', () => {
  assert.equal(allowedConflictsFromLastApplied(withAnnotation(undefined), API_VERSION, root), undefined);
  assert.equal(allowedConflictsFromLastApplied({ apiVersion: API_VERSION }, API_VERSION, root), undefined);
  for (const text of ['', '{not json', 'null', '5', JSON.stringify({ apiVersion: 'v1', kind: 'ServiceCIDR' }), JSON.stringify({ kind: 'ServiceCIDR' })]) {
    assert.equal(allowedConflictsFromLastApplied(withAnnotation(text), API_VERSION, root), undefined, text);
  }
  // The annotation's own list items must carry their keys.
  const keyless = JSON.stringify({ apiVersion: API_VERSION, kind: 'ServiceCIDR', status: { conditions: [{ status: 'True' }] } });
  assert.equal(allowedConflictsFromLastApplied(withAnnotation(keyless), API_VERSION, root), undefined);
});

test('while the annotation exists, it is set to the configuration applied (sorted keys, its own annotation left out, a newline)', () => {
  const obj = withAnnotation('old') as unknown as KubeObject;
  obj.metadata.annotations!.other = 'kept';
  const config = {
    kind: 'ServiceCIDR',
    apiVersion: API_VERSION,
    metadata: { name: 'demo', annotations: { [LAST_APPLIED_ANNOTATION]: 'stale', z: '1' } },
    spec: { cidrs: ['10.0.0.0/24'] },
  };
  syncLastApplied(obj, config);
  assert.deepEqual(obj.metadata.annotations, {
    [LAST_APPLIED_ANNOTATION]: '{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR","metadata":{"annotations":{"z":"1"},"name":"demo"},"spec":{"cidrs":["10.0.0.0/24"]}}\n',
    other: 'kept',
  });
  assert.equal(config.metadata.annotations[LAST_APPLIED_ANNOTATION], 'stale', 'the configuration itself is left alone');

  const noAnnotations = withAnnotation(undefined) as unknown as KubeObject;
  syncLastApplied(noAnnotations, config);
  assert.equal(noAnnotations.metadata.annotations, undefined);
  const others = withAnnotation(undefined) as unknown as KubeObject;
  others.metadata.annotations = { other: 'x' };
  syncLastApplied(others, config);
  assert.deepEqual(others.metadata.annotations, { other: 'x' });
  const bare = withAnnotation('old') as unknown as KubeObject;
  syncLastApplied(bare, { apiVersion: API_VERSION, kind: 'ServiceCIDR' });
  assert.equal(bare.metadata.annotations![LAST_APPLIED_ANNOTATION], '{"apiVersion":"networking.platform.io/v1","kind":"ServiceCIDR"}\n');
});

test('an empty annotation is not kept in step (kube syncs only a non-empty one)', () => {
  const obj = withAnnotation('') as unknown as KubeObject;
  syncLastApplied(obj, { apiVersion: API_VERSION, kind: 'ServiceCIDR' });
  assert.deepEqual(obj.metadata.annotations, { [LAST_APPLIED_ANNOTATION]: '' });
});

test('an annotation that would take the annotations past 256 KiB is left out instead', () => {
  const config = { apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo' } };
  const text = `${JSON.stringify({ apiVersion: API_VERSION, kind: 'ServiceCIDR', metadata: { name: 'demo' } })}\n`;
  // Bytes, not characters: "é" is two.
  const room = 256 * 1024 - 'big'.length - LAST_APPLIED_ANNOTATION.length - text.length;
  const atLimit = withAnnotation('old') as unknown as KubeObject;
  atLimit.metadata.annotations!.big = 'é'.repeat(room / 2);
  syncLastApplied(atLimit, config);
  assert.equal(atLimit.metadata.annotations![LAST_APPLIED_ANNOTATION], text, 'exactly at the limit is kept');
  const past = withAnnotation('old') as unknown as KubeObject;
  past.metadata.annotations!.big = `${'é'.repeat(room / 2)}x`;
  syncLastApplied(past, config);
  assert.deepEqual(Object.keys(past.metadata.annotations!), ['big'], 'past the limit the annotation goes');
});
