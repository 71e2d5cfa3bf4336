// ClusterTrustBundleAttest cases the first mutation run found unpinned (issue #35): the exact
// SubjectAccessReview-shaped question asked, each half of the resource check, a reordered body
// that changes only finalizers, and an authorizer that fails on both names.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionAttributes } from '../apimachinery/admission.js';
import type { KubeObject } from '../apimachinery/object-meta.js';
import { isStatusError } from '../apimachinery/status-error.js';
import { ALL_RULES, type AuthorizationAttributes, type Authorizer } from './authorizer.js';
import { CtbAttestAdmission } from './ctb-attest-admission.js';

function recording(allow: (a: AuthorizationAttributes) => boolean): Authorizer & { asked: AuthorizationAttributes[] } {
  const asked: AuthorizationAttributes[] = [];
  return {
    asked,
    rulesFor: async () => ALL_RULES,
    async authorize(a) {
      asked.push(a);
      return { decision: allow(a) ? 'allow' : 'no-opinion', reason: '' };
    },
  };
}

const bundle = (meta: Partial<KubeObject['metadata']> = {}, signerName = 'example.com/foo'): KubeObject =>
  ({ apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: 'example.com:foo:a', ...meta }, spec: { signerName, trustBundle: 'pem' } }) as KubeObject;

const user = { username: 'alice', groups: ['system:authenticated'] };
const attrs = (operation: 'CREATE' | 'UPDATE', object: KubeObject, oldObject?: KubeObject): AdmissionAttributes => ({
  operation,
  group: 'certificates.platform.io',
  version: 'v1beta1',
  kind: 'ClusterTrustBundle',
  resource: 'clustertrustbundles',
  subresource: '',
  name: object.metadata.name!,
  namespace: '',
  object,
  oldObject,
  user,
  dryRun: false,
  warnings: [],
  annotate: () => {},
});

const forbidden = (e: unknown) => isStatusError(e) && e.code === 403;

describe('ClusterTrustBundleAttest pins', () => {
  test("the plugin's name is upstream's", () => {
    assert.equal(new CtbAttestAdmission(recording(() => true)).name, 'ClusterTrustBundleAttest');
  });

  test('asks for attest on the signer as a cluster-scoped resource request in certificates.platform.io, any version', async () => {
    const authz = recording(() => true);
    await new CtbAttestAdmission(authz).validate(attrs('CREATE', bundle()));
    assert.deepEqual(authz.asked, [
      {
        user,
        verb: 'attest',
        isResourceRequest: true,
        path: '',
        apiGroup: 'certificates.platform.io',
        apiVersion: '*',
        resource: 'signers',
        subresource: '',
        namespace: '',
        name: 'example.com/foo',
      },
    ]);
  });

  test('only clustertrustbundles in certificates.platform.io are checked: another group or another resource is not', async () => {
    const authz = recording(() => false);
    const plugin = new CtbAttestAdmission(authz);
    await plugin.validate({ ...attrs('CREATE', bundle()), group: 'other.io' });
    await plugin.validate({ ...attrs('CREATE', bundle()), resource: 'servicecidrs' });
    assert.deepEqual(authz.asked, []);
    await assert.rejects(plugin.validate(attrs('CREATE', bundle())), forbidden);
  });

  test('an update without its old object is checked', async () => {
    await assert.rejects(new CtbAttestAdmission(recording(() => false)).validate(attrs('UPDATE', bundle())), forbidden);
  });

  test('an update that changes only finalizers is not checked, whatever order its fields come in', async () => {
    const authz = recording(() => false);
    const old = bundle({ resourceVersion: '5', labels: { a: '1', b: '2' } });
    // Same content, keys in another order (as a client may send them), finalizers added.
    const next = {
      spec: { trustBundle: 'pem', signerName: 'example.com/foo' },
      metadata: { labels: { b: '2', a: '1' }, finalizers: ['example.com/keep'], resourceVersion: '5', name: 'example.com:foo:a' },
      kind: 'ClusterTrustBundle',
      apiVersion: 'certificates.platform.io/v1beta1',
    } as KubeObject;
    await new CtbAttestAdmission(authz).validate(attrs('UPDATE', next, old));
    assert.deepEqual(authz.asked, []);
  });

  test('an update that changes a list inside the object is checked', async () => {
    const old = bundle({ labels: { a: '1' } });
    const next = { ...bundle({ labels: { a: '1' } }), spec: { signerName: 'example.com/foo', trustBundle: 'other pem' } } as KubeObject;
    await assert.rejects(new CtbAttestAdmission(recording(() => false)).validate(attrs('UPDATE', next, old)), forbidden);
  });

  test('an authorizer that fails on both names is a no: forbidden', async () => {
    const failing: Authorizer = {
      rulesFor: async () => ALL_RULES,
      async authorize() {
        throw new Error('backend down');
      },
    };
    await assert.rejects(new CtbAttestAdmission(failing).validate(attrs('CREATE', bundle())), forbidden);
  });
});
