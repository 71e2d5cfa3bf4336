// Kubernetes' authz library (and its selectors): `authorizer.group(g).resource(r)....check(verb)`
// and `authorizer.path(p).check(verb)` ask the server's authorizer about the request's user (or a
// service account). A check costs 350000, so that an expression can afford two (Kubernetes' cost
// estimator). Checks are answered synchronously from what the caller resolved beforehand; an
// unanswered one stops the evaluation (AuthorizationNeeded) so that the caller can ask the
// authorizer and evaluate again (program.ts).

import { isDNS1123Label, isDNS1123Subdomain } from '../../apimachinery/validation/names.js';
import { method, type AuthzAttributes, type AuthzDecision, type AuthzUser, type CallContext, type Overload } from '../functions.js';
import { T } from '../types.js';
import { CelError, Opaque, type CelResult } from '../values.js';

export const AUTHORIZER_TYPE = 'kubernetes.authorization.Authorizer';
export const PATH_CHECK_TYPE = 'kubernetes.authorization.PathCheck';
export const GROUP_CHECK_TYPE = 'kubernetes.authorization.GroupCheck';
export const RESOURCE_CHECK_TYPE = 'kubernetes.authorization.ResourceCheck';
export const DECISION_TYPE = 'kubernetes.authorization.Decision';

/** Thrown when a check's answer is not known yet; the caller resolves `attrs` and evaluates again. */
export class AuthorizationNeeded extends Error {
  override name = 'AuthorizationNeeded';
  constructor(readonly attrs: AuthzAttributes) {
    super('authorization check pending');
  }
}

/** Receiver-only values: no fields, equal only to themselves. */
abstract class ReceiverOnly extends Opaque {
  equals(other: Opaque): boolean {
    return other === this;
  }
}

export class AuthorizerValue extends ReceiverOnly {
  readonly typeName = AUTHORIZER_TYPE;
  constructor(readonly user: AuthzUser) {
    super();
  }
}

class PathCheckValue extends ReceiverOnly {
  readonly typeName = PATH_CHECK_TYPE;
  constructor(
    readonly authz: AuthorizerValue,
    readonly path: string,
  ) {
    super();
  }
}

class GroupCheckValue extends ReceiverOnly {
  readonly typeName = GROUP_CHECK_TYPE;
  constructor(
    readonly authz: AuthorizerValue,
    readonly group: string,
  ) {
    super();
  }
}

export interface ResourceCheckFields {
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly fieldSelector: string;
  readonly labelSelector: string;
}

export class ResourceCheckValue extends ReceiverOnly {
  readonly typeName = RESOURCE_CHECK_TYPE;
  constructor(
    readonly group: GroupCheckValue,
    readonly fields: ResourceCheckFields,
  ) {
    super();
  }
  with(change: Partial<ResourceCheckFields>): ResourceCheckValue {
    return new ResourceCheckValue(this.group, { ...this.fields, ...change });
  }
}

class DecisionValue extends ReceiverOnly {
  readonly typeName = DECISION_TYPE;
  constructor(readonly decision: AuthzDecision) {
    super();
  }
}

/** `authorizer.requestResource`: a check on the resource the request is about. */
export function requestResourceCheck(user: AuthzUser, group: string, fields: Omit<ResourceCheckFields, 'fieldSelector' | 'labelSelector'>): ResourceCheckValue {
  return new ResourceCheckValue(new GroupCheckValue(new AuthorizerValue(user), group), { ...fields, fieldSelector: '', labelSelector: '' });
}

function decide(ctx: CallContext, attrs: AuthzAttributes): CelResult {
  if (!ctx.authorize) return new CelError('no such overload');
  const d = ctx.authorize(attrs);
  if (!d) throw new AuthorizationNeeded(attrs);
  return new DecisionValue(d);
}

/** serviceaccount.UserInfo(namespace, name): its username and groups. */
function serviceAccountUser(namespace: string, name: string): AuthzUser {
  return { username: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] };
}

const A = T.opaque(AUTHORIZER_TYPE);
const PC = T.opaque(PATH_CHECK_TYPE);
const GC = T.opaque(GROUP_CHECK_TYPE);
const RC = T.opaque(RESOURCE_CHECK_TYPE);
const D = T.opaque(DECISION_TYPE);

const nominal = (): number => 1;
const CHECK_COST = 350000;

const resourceOverload = (id: string, name: keyof ResourceCheckFields): Overload =>
  method(id, name, [RC, T.string], RC, (rc: ResourceCheckValue, v: string) => rc.with({ [name]: v }), nominal);

/** The authz library; checks call back through the evaluation's CallContext. */
export const authzOverloads: Overload[] = [
  method('authorizer_path', 'path', [A, T.string], PC, (a: AuthorizerValue, p: string) => (p.trim() === '' ? new CelError('path must not be empty') : new PathCheckValue(a, p)), nominal),
  method('authorizer_group', 'group', [A, T.string], GC, (a: AuthorizerValue, g: string) => new GroupCheckValue(a, g), nominal),
  method('authorizer_serviceaccount', 'serviceAccount', [A, T.string, T.string], A, (_a: AuthorizerValue, ns: string, name: string) => {
    if (isDNS1123Subdomain(name).length) return new CelError('Invalid service account name');
    if (isDNS1123Label(ns).length) return new CelError('Invalid service account namespace');
    return new AuthorizerValue(serviceAccountUser(ns, name));
  }, nominal),
  method('groupcheck_resource', 'resource', [GC, T.string], RC, (g: GroupCheckValue, r: string) =>
    r.trim() === '' ? new CelError('resource must not be empty') : new ResourceCheckValue(g, { resource: r, subresource: '', namespace: '', name: '', fieldSelector: '', labelSelector: '' }), nominal),
  resourceOverload('resourcecheck_subresource', 'subresource'),
  resourceOverload('resourcecheck_namespace', 'namespace'),
  resourceOverload('resourcecheck_name', 'name'),
  resourceOverload('authorizer_fieldselector', 'fieldSelector'),
  resourceOverload('authorizer_labelselector', 'labelSelector'),
  { ...method('pathcheck_check', 'check', [PC, T.string], D, () => null, () => CHECK_COST), impl: (args: readonly unknown[], ctx: CallContext) => {
    const [pc, verb] = args as [PathCheckValue, string];
    return decide(ctx, { user: pc.authz.user, verb, isResourceRequest: false, path: pc.path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' });
  } },
  { ...method('resourcecheck_check', 'check', [RC, T.string], D, () => null, () => CHECK_COST), impl: (args: readonly unknown[], ctx: CallContext) => {
    const [rc, verb] = args as [ResourceCheckValue, string];
    const f = rc.fields;
    return decide(ctx, {
      user: rc.group.authz.user,
      verb,
      isResourceRequest: true,
      path: '',
      apiGroup: rc.group.group,
      apiVersion: '*',
      resource: f.resource,
      subresource: f.subresource,
      namespace: f.namespace,
      name: f.name,
      ...(f.fieldSelector ? { fieldSelector: f.fieldSelector } : {}),
      ...(f.labelSelector ? { labelSelector: f.labelSelector } : {}),
    });
  } },
  method('decision_errored', 'errored', [D], T.bool, (d: DecisionValue) => d.decision.error !== undefined, nominal),
  method('decision_error', 'error', [D], T.string, (d: DecisionValue) => d.decision.error ?? '', nominal),
  method('decision_allowed', 'allowed', [D], T.bool, (d: DecisionValue) => d.decision.decision === 'allow', nominal),
  method('decision_reason', 'reason', [D], T.string, (d: DecisionValue) => d.decision.reason, nominal),
];

