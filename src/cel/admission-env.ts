// The declarations Kubernetes compiles admission expressions against (plugin/cel/compile.go):
// `object`, `oldObject` and `params` as dyn, `request` as kubernetes.AdmissionRequest,
// `namespaceObject` as kubernetes.Namespace, `authorizer` and `authorizer.requestResource` when
// the expression may use them, and `variables` with a field per policy variable.

import type { Declarations } from './checker.js';
import { AUTHORIZER_TYPE, RESOURCE_CHECK_TYPE } from './lib/authz.js';
import { kubernetesLibrary, kubernetesTypeNames } from './library.js';
import { T, type CelType } from './types.js';

const fields = (entries: [string, CelType][]): (() => ReadonlyMap<string, CelType>) => {
  const m = new Map(entries);
  return () => m;
};

const gvk = T.object('kubernetes.GroupVersionKind', fields([['group', T.string], ['version', T.string], ['kind', T.string]]));
const gvr = T.object('kubernetes.GroupVersionResource', fields([['group', T.string], ['version', T.string], ['resource', T.string]]));
const userInfo = T.object(
  'kubernetes.UserInfo',
  fields([
    ['username', T.string],
    ['uid', T.string],
    ['groups', T.list(T.string)],
    ['extra', T.map(T.string, T.list(T.string))],
  ]),
);

export const ADMISSION_REQUEST_TYPE = T.object(
  'kubernetes.AdmissionRequest',
  fields([
    ['kind', gvk],
    ['resource', gvr],
    ['subResource', T.string],
    ['requestKind', gvk],
    ['requestResource', gvr],
    ['requestSubResource', T.string],
    ['name', T.string],
    ['namespace', T.string],
    ['operation', T.string],
    ['userInfo', userInfo],
    ['dryRun', T.bool],
    ['options', T.dyn],
  ]),
);

const namespaceMetadata = T.object(
  'kubernetes.NamespaceMetadata',
  fields([
    ['name', T.string],
    ['generateName', T.string],
    ['namespace', T.string],
    ['labels', T.map(T.string, T.string)],
    ['annotations', T.map(T.string, T.string)],
    ['UID', T.string],
    ['creationTimestamp', T.timestamp],
    ['deletionGracePeriodSeconds', T.int],
    ['deletionTimestamp', T.timestamp],
    ['generation', T.int],
    ['resourceVersion', T.string],
    ['finalizers', T.list(T.string)],
  ]),
);
const namespaceCondition = T.object(
  'kubernetes.NamespaceCondition',
  fields([
    ['status', T.string],
    ['type', T.string],
    ['lastTransitionTime', T.timestamp],
    ['message', T.string],
    ['reason', T.string],
  ]),
);

export const NAMESPACE_TYPE = T.object(
  'kubernetes.Namespace',
  fields([
    ['metadata', namespaceMetadata],
    ['spec', T.object('kubernetes.NamespaceSpec', fields([['finalizers', T.list(T.string)]]))],
    ['status', T.object('kubernetes.NamespaceStatus', fields([['conditions', T.list(namespaceCondition)], ['phase', T.string]]))],
  ]),
);

export interface AdmissionDeclarationOptions {
  /** The policy has a paramKind: `params` is declared. */
  readonly params: boolean;
  /** `authorizer` and `authorizer.requestResource` are declared (not in messageExpression). */
  readonly authorizer: boolean;
  /** The policy's variables compiled so far, by name; absent where composition is not offered (webhooks). */
  readonly variables?: ReadonlyMap<string, CelType>;
  /** Types for object/oldObject and params (type checking against schemas); dyn by default. */
  readonly objectType?: CelType;
  readonly paramsType?: CelType;
}

export function admissionDeclarations(o: AdmissionDeclarationOptions): Declarations {
  const variables = new Map<string, CelType>([
    ['object', o.objectType ?? T.dyn],
    ['oldObject', o.objectType ?? T.dyn],
    ['request', ADMISSION_REQUEST_TYPE],
    ['namespaceObject', NAMESPACE_TYPE],
  ]);
  if (o.params) variables.set('params', o.paramsType ?? T.dyn);
  if (o.authorizer) {
    variables.set('authorizer', T.opaque(AUTHORIZER_TYPE));
    variables.set('authorizer.requestResource', T.opaque(RESOURCE_CHECK_TYPE));
  }
  if (o.variables) {
    const declared = o.variables;
    variables.set('variables', T.object('kubernetes.variables', () => declared));
  }
  return { variables, functions: kubernetesLibrary, typeNames: kubernetesTypeNames };
}
