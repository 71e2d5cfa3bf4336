// The ValidatingAdmissionPolicy resource definition (admissionregistration.k8s.io/v1), with /status.

import { kindOrder } from '../../apimachinery/field-order.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import { POLICY_SPEC, POLICY_STATUS } from '../admissionregistration/field-orders.js';
import { admissionSchemas, names } from '../admissionregistration/schemas.js';
import { policyColumns } from '../admissionregistration/tables.js';
import { GROUP, VERSION, type ValidatingAdmissionPolicy } from '../admissionregistration/types.js';
import { policyStatusStrategy, policyStrategy } from './strategy.js';

export const validatingAdmissionPolicies: ResourceDefinition<ValidatingAdmissionPolicy> = {
  group: GROUP,
  version: VERSION,
  kind: 'ValidatingAdmissionPolicy',
  listKind: 'ValidatingAdmissionPolicyList',
  plural: 'validatingadmissionpolicies',
  singular: 'validatingadmissionpolicy',
  scope: 'Cluster',
  shortNames: [],
  categories: ['api-extensions'],
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  strategy: policyStrategy,
  subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'], strategy: policyStatusStrategy }],
  table: policyColumns,
  schemas: admissionSchemas,
  schemaName: names.vap,
  listSchemaName: names.vapList,
  fieldOrder: kindOrder(['spec', POLICY_SPEC], ['status', POLICY_STATUS]),
  zeroValue: () => ({ metadata: { creationTimestamp: null }, spec: {}, status: {} }),
  selectableFields: (o) => ({ 'metadata.name': o.metadata.name ?? '', 'metadata.namespace': '' }),
  unknownFieldLabelMessage: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
};
