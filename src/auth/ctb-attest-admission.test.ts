import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionAttributes } from '../apimachinery/admission.js';
import type { KubeObject } from '../apimachinery/object-meta.js';
import { isStatusError } from '../apimachinery/status-error.js';
import { ALL_RULES, type AuthorizationAttributes, type Authorizer } from './authorizer.js';
import { CtbAttestAdmission } from './ctb-attest-admission.js';

/** Allows attest on exactly the given signer names; records every question. */
function attestOn(allowed: string[], asked: string[] = []): Authorizer {
  return {
    rulesFor: async () => ALL_RULES,
    async authorize(a: AuthorizationAttributes) {
      asked.push(`${a.verb} ${a.apiGroup}/${a.resource}/${a.name}`);
      return { decision: allowed.includes(a.name) ? 'allow' : 'no-opinion', reason: '' };
    },
  };
}

const bundle = (name: string, signerName?: string, meta: Partial<KubeObject['metadata']> = {}): KubeObject =>
  ({ apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name, ...meta }, spec: { trustBundle: 'pem', ...(signerName ? { signerName } : {}) } }) as KubeObject;

const attrs = (operation: 'CREATE' | 'UPDATE' | 'DELETE', object: KubeObject, oldObject?: KubeObject): AdmissionAttributes => ({
  operation,
  group: 'certificates.platform.io',
  version: 'v1beta1',
  kind: 'ClusterTrustBundle',
  resource: 'clustertrustbundles',
  subresource: '',
  name: object.metadata.name!,
  namespace: '',
  warnings: [],
  annotate: () => {},
  object,
  oldObject,
  user: { username: 'alice', groups: ['system:authenticated'] },
  dryRun: false,
});

const denied = (e: unknown, name: string, signer: string): boolean =>
  isStatusError(e) &&
  e.code === 403 &&
  e.reason === 'Forbidden' &&
  e.message === `clustertrustbundles.certificates.platform.io "${name}" is forbidden: user not permitted to attest for signerName "${signer}"`;

describe('ClusterTrustBundleAttest admission', () => {
  test('a bundle without a signer needs no attest permission', async () => {
    const asked: string[] = [];
    await new CtbAttestAdmission(attestOn([], asked)).validate(attrs('CREATE', bundle('plain')));
    assert.deepEqual(asked, []);
  });

  test('create with a signer asks for attest on the signer, then on its domain', async () => {
    const asked: string[] = [];
    const plugin = new CtbAttestAdmission(attestOn(['example.com/*'], asked));
    await plugin.validate(attrs('CREATE', bundle('example.com:foo:a', 'example.com/foo')));
    assert.deepEqual(asked, ['attest certificates.platform.io/signers/example.com/foo', 'attest certificates.platform.io/signers/example.com/*']);
  });

  test('exact signer permission is enough', async () => {
    await new CtbAttestAdmission(attestOn(['example.com/foo'])).validate(attrs('CREATE', bundle('example.com:foo:a', 'example.com/foo')));
  });

  test('without permission the request is forbidden with the upstream message', async () => {
    const plugin = new CtbAttestAdmission(attestOn(['other.com/*']));
    await assert.rejects(plugin.validate(attrs('CREATE', bundle('example.com:foo:a', 'example.com/foo'))), (e) => denied(e, 'example.com:foo:a', 'example.com/foo'));
  });

  test('updates that touch only finalizers or ownerReferences are not checked', async () => {
    const plugin = new CtbAttestAdmission(attestOn([]));
    const old = bundle('example.com:foo:a', 'example.com/foo', { resourceVersion: '5' });
    const next = bundle('example.com:foo:a', 'example.com/foo', {
      resourceVersion: '5',
      finalizers: ['example.com/keep'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: 'u' }],
    });
    await plugin.validate(attrs('UPDATE', next, old));
  });

  test('a label change on a signer bundle is checked', async () => {
    const plugin = new CtbAttestAdmission(attestOn([]));
    const old = bundle('example.com:foo:a', 'example.com/foo');
    const next = bundle('example.com:foo:a', 'example.com/foo', { labels: { a: 'b' } });
    await assert.rejects(plugin.validate(attrs('UPDATE', next, old)), (e) => denied(e, 'example.com:foo:a', 'example.com/foo'));
  });

  test('deletes and other resources are ignored', async () => {
    const plugin = new CtbAttestAdmission(attestOn([]));
    await plugin.validate(attrs('DELETE', bundle('example.com:foo:a', 'example.com/foo')));
    await plugin.validate({ ...attrs('CREATE', bundle('example.com:foo:a', 'example.com/foo')), group: 'networking.platform.io', resource: 'servicecidrs' });
  });

  test('an authorizer error on the exact name falls through to the domain check', async () => {
    let calls = 0;
    const flaky: Authorizer = {
      rulesFor: async () => ALL_RULES,
      async authorize(a) {
        calls++;
        if (a.name === 'example.com/foo') throw new Error('backend down');
        return { decision: 'allow', reason: '' };
      },
    };
    await new CtbAttestAdmission(flaky).validate(attrs('CREATE', bundle('example.com:foo:a', 'example.com/foo')));
    assert.equal(calls, 2);
  });
});
