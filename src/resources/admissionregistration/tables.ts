// `kubectl get` columns of the admissionregistration kinds, as kube's printers define them.

import { translateTimestampSince } from '../../apimachinery/duration.js';
import type { KubeObject } from '../../apimachinery/object-meta.js';
import type { TableColumn } from '../../registry/resource-definition.js';
import { nameColumn } from '../name-column.js';
import type { LabelSelector, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidatingWebhookConfiguration } from './types.js';

function ageColumn<T extends KubeObject>(): TableColumn<T> {
  return {
    name: 'Age',
    type: 'string',
    format: '',
    description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
    priority: 0,
    cell: (o, now) => translateTimestampSince(o.metadata.creationTimestamp, now),
  };
}

export const webhookConfigurationColumns: readonly TableColumn<ValidatingWebhookConfiguration>[] = [
  nameColumn(),
  { name: 'Webhooks', type: 'integer', format: '', description: 'Webhooks indicates the number of webhooks registered in this configuration', priority: 0, cell: (o) => (o.webhooks ?? []).length },
  ageColumn(),
];

export const policyColumns: readonly TableColumn<ValidatingAdmissionPolicy>[] = [
  nameColumn(),
  { name: 'Validations', type: 'integer', format: '', description: 'Validations indicates the number of validation rules defined in this configuration', priority: 0, cell: (o) => (o.spec?.validations ?? []).length },
  {
    name: 'ParamKind',
    type: 'string',
    format: '',
    description: 'ParamKind specifies the kind of resources used to parameterize this policy',
    priority: 0,
    cell: (o) => (o.spec?.paramKind ? `${o.spec.paramKind.apiVersion ?? ''}/${o.spec.paramKind.kind ?? ''}` : '<unset>'),
  },
  ageColumn(),
];

/** metav1.LabelSelector's generated String(), which kube's printer shows for a selector paramRef. */
export function selectorText(s: LabelSelector): string {
  const labels = Object.keys(s.matchLabels ?? {})
    .sort()
    .map((k) => `${k}: ${s.matchLabels![k]},`)
    .join('');
  const exprs = (s.matchExpressions ?? []).map((r) => `LabelSelectorRequirement{Key:${r.key ?? ''},Operator:${r.operator ?? ''},Values:[${(r.values ?? []).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

export const bindingColumns: readonly TableColumn<ValidatingAdmissionPolicyBinding>[] = [
  nameColumn(),
  { name: 'PolicyName', type: 'string', format: '', description: 'PolicyName indicates the policy definition which the policy binding binded to', priority: 0, cell: (o) => o.spec?.policyName ?? '' },
  {
    name: 'ParamRef',
    type: 'string',
    format: '',
    description: 'ParamRef indicates the param resource which sets the configration param',
    priority: 0,
    cell: (o) => {
      const pr = o.spec?.paramRef;
      if (!pr) return '<unset>';
      if (pr.name) return pr.namespace ? `${pr.namespace}/${pr.name}` : `*/${pr.name}`;
      return pr.selector ? selectorText(pr.selector) : '<unset>';
    },
  },
  ageColumn(),
];
