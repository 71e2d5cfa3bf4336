// ClusterTrustBundleAttest (spec 2.1 rule 1, 4.3 rule 1, 5.3): creating or changing a bundle
// tied to a signer needs verb `attest` on `signers` in certificates.platform.io, named by the
// signer or by `<domain>/*`. Runs after validation, also for dry-run requests.

import type { AdmissionAttributes, AdmissionPlugin } from '../apimachinery/admission.js';
import type { KubeObject } from '../apimachinery/object-meta.js';
import { forbidden } from '../apimachinery/status-error.js';
import type { Authorizer } from './authorizer.js';

const GROUP = 'certificates.platform.io';
const RESOURCE = 'clustertrustbundles';

interface TrustBundleLike extends KubeObject {
  spec?: { signerName?: string };
}

export class CtbAttestAdmission implements AdmissionPlugin {
  readonly name = 'ClusterTrustBundleAttest';

  constructor(private readonly authorizer: Authorizer) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    if (attrs.group !== GROUP || attrs.resource !== RESOURCE) return;
    const bundle = attrs.object as TrustBundleLike | undefined;
    const signerName = bundle?.spec?.signerName ?? '';
    if (!signerName) return;
    // Stryker disable next-line ConditionalExpression: equivalent, a CREATE never carries an old object
    if (attrs.operation === 'UPDATE' && attrs.oldObject && changesOnlyGarbageCollectionFields(bundle!, attrs.oldObject)) return;
    if (await this.mayAttest(attrs, signerName)) return;
    throw forbidden({ group: GROUP, resource: RESOURCE }, attrs.name, `user not permitted to attest for signerName "${signerName}"`);
  }

  /** The signer by name first, then its whole domain (`example.com/*`); an authorizer error counts as no. */
  private async mayAttest(attrs: AdmissionAttributes, signerName: string): Promise<boolean> {
    const domain = signerName.split('/')[0]!;
    for (const name of [signerName, `${domain}/*`]) {
      try {
        const r = await this.authorizer.authorize({
          user: attrs.user,
          verb: 'attest',
          isResourceRequest: true,
          path: '',
          apiGroup: GROUP,
          apiVersion: '*',
          resource: 'signers',
          subresource: '',
          namespace: '',
          name,
        });
        if (r.decision === 'allow') return true;
      } catch {
        // As upstream: an authorizer failure on the exact name still lets the domain rule decide.
      }
    }
    return false;
  }
}

/**
 * Upstream skips the check when the update only touches ownerReferences or finalizers (garbage
 * collection and finalizer edits). Server-maintained bookkeeping (resourceVersion, managedFields)
 * is ignored in the comparison too, so a no-op update is also skipped.
 */
function changesOnlyGarbageCollectionFields(next: KubeObject, old: KubeObject): boolean {
  const strip = (o: KubeObject): unknown => {
    const { ownerReferences: _o, finalizers: _f, resourceVersion: _r, managedFields: _m, selfLink: _s, ...meta } = o.metadata;
    return { ...o, metadata: meta };
  };
  return canonicalJson(strip(next)) === canonicalJson(strip(old));
}

// Stryker disable next-line EqualityOperator,ConditionalExpression: equivalent, an object's keys are distinct and V8's sort only asks whether the result is negative, so each mutant still sorts both sides alike
const byKey = ([a]: [string, unknown], [b]: [string, unknown]): number => (a < b ? -1 : a > b ? 1 : 0);

function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(byKey)) : value,
  );
}
