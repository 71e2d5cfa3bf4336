// Who may point a policy at params (kube's validatingadmissionpolicy and -binding registry
// authorization, run there as part of validation): a policy with a paramKind needs "get" on every
// object of that kind, a binding with a paramRef "get" on the object it names; system:masters
// skips both, and an unchanged paramKind (paramRef and policyName) is not asked again.

import type { AdmissionAttributes, AdmissionPlugin } from '../../apimachinery/admission.js';
import { fieldErrors } from '../../apimachinery/field-error.js';
import type { UserInfo } from '../../apimachinery/request-context.js';
import { internalContext, silentLogger } from '../../apimachinery/request-context.js';
import { invalid } from '../../apimachinery/status-error.js';
import type { Authorizer } from '../../auth/authorizer.js';
import { GROUP, type ParamKind, type ValidatingAdmissionPolicy, type ValidatingAdmissionPolicyBinding } from '../../resources/admissionregistration/types.js';
import { ADMISSION_USER, definitionOf, type AdmissionSources } from '../informers.js';
import { goUserString } from '../errors.js';

const sameJson = (x: unknown, y: unknown): boolean => JSON.stringify(x) === JSON.stringify(y);

export class ParamAuthorization implements AdmissionPlugin {
  readonly name = 'ValidatingAdmissionPolicyParamAuthorization';

  constructor(
    private readonly sources: AdmissionSources,
    private readonly authorizer: Authorizer,
  ) {}

  async validate(a: AdmissionAttributes): Promise<void> {
    if (a.group !== GROUP || a.subresource !== '' || (a.operation !== 'CREATE' && a.operation !== 'UPDATE')) return;
    if (a.user.groups.includes('system:masters')) return;
    if (a.resource === 'validatingadmissionpolicies') {
      const p = a.object as ValidatingAdmissionPolicy;
      const pk = p.spec?.paramKind;
      if (!pk) return;
      const old = a.oldObject as ValidatingAdmissionPolicy | undefined;
      if (old?.spec?.paramKind && sameJson(old.spec.paramKind, pk)) return;
      const why = await this.check(a.user, pk, '*', '*');
      if (why !== undefined) throw invalid({ group: GROUP, kind: 'ValidatingAdmissionPolicy' }, a.name, [fieldErrors.forbidden('spec.paramKind', why ?? `user ${goUserString(a.user)} must have "get" permission on all objects of the referenced paramKind (kind=${pk.kind ?? ''}, apiVersion=${pk.apiVersion ?? ''})`)]);
    } else if (a.resource === 'validatingadmissionpolicybindings') {
      const b = a.object as ValidatingAdmissionPolicyBinding;
      const ref = b.spec?.paramRef;
      if (!ref) return;
      const old = a.oldObject as ValidatingAdmissionPolicyBinding | undefined;
      if (old?.spec?.paramRef && sameJson(old.spec.paramRef, ref) && old.spec.policyName === b.spec?.policyName) return;
      const pk = await this.policyParamKind(b.spec?.policyName ?? '');
      const why = await this.check(a.user, pk, ref.name ?? '', ref.namespace ?? '');
      if (why !== undefined) throw invalid({ group: GROUP, kind: 'ValidatingAdmissionPolicyBinding' }, a.name, [fieldErrors.forbidden('spec.paramRef', why ?? `user ${goUserString(a.user)} does not have "get" permission on the object referenced by paramRef`)]);
    }
  }

  /** undefined: allowed; null: not allowed; a string: the authorizer's error. */
  private async check(user: UserInfo, pk: ParamKind | undefined, name: string, namespace: string): Promise<string | null | undefined> {
    // Unknown parts are asked as wildcards (all groups, versions or resources).
    let [apiGroup, apiVersion, resource] = ['*', '*', '*'];
    const parts = (pk?.apiVersion ?? '').split('/');
    if (pk && parts.length <= 2) {
      [apiGroup, apiVersion] = parts.length === 1 ? ['', parts[0]!] : [parts[0]!, parts[1]!];
      const storage = this.sources.find(apiGroup, apiVersion, pk.kind ?? '');
      if (storage) resource = definitionOf(storage).plural;
    }
    const r = await this.authorizer.authorize({ user, verb: 'get', isResourceRequest: true, path: '', apiGroup, apiVersion, resource, subresource: '', namespace, name });
    if (r.decision === 'allow') return undefined;
    return r.error ?? null;
  }

  private async policyParamKind(name: string): Promise<ParamKind | undefined> {
    const storage = this.sources.find(GROUP, 'v1', 'ValidatingAdmissionPolicy');
    try {
      const p = (await storage?.get(internalContext(ADMISSION_USER, silentLogger), name, {})) as ValidatingAdmissionPolicy | undefined;
      return p?.spec?.paramKind;
    } catch {
      return undefined;
    }
  }
}
