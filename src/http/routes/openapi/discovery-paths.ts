// The non-resource operations kube-apiserver's OpenAPI v2 document lists beside the resources:
// API discovery (/apis/, each group, each group-version) and /version/, with the schemas of
// their responses (descriptions in our words, names as upstream's).

import { refTo, type SchemaRegistry } from '../../../apimachinery/schema.js';
import { META } from '../../../apimachinery/common-schemas.js';
import type { ResourceDefinition } from '../../../registry/resource-definition.js';
import { camel, groupId, groupTagOf, rootOf, tagOf, type Operation, type PathItem } from './operations.js';

const API_GROUP_LIST = `${META}.APIGroupList`;
const API_GROUP = `${META}.APIGroup`;
const GROUP_VERSION = `${META}.GroupVersionForDiscovery`;
const SERVER_ADDRESS = `${META}.ServerAddressByClientCIDR`;
const API_RESOURCE_LIST = `${META}.APIResourceList`;
const API_RESOURCE = `${META}.APIResource`;
const API_VERSIONS = `${META}.APIVersions`;
const VERSION_INFO = 'io.k8s.apimachinery.pkg.version.Info';

const str = (description: string) => ({ type: 'string' as const, description, default: '' });
const strings = (description: string) => ({ type: 'array' as const, description, items: { type: 'string' as const, default: '' }, 'x-kubernetes-list-type': 'atomic' as const });
const list = (ref: string, description: string) => ({ type: 'array' as const, description, items: { allOf: [refTo(ref)], default: {} }, 'x-kubernetes-list-type': 'atomic' as const });
const typeMeta = { apiVersion: { type: 'string' as const, description: 'The versioned schema of this representation.' }, kind: { type: 'string' as const, description: 'The kind of this representation.' } };

export const discoverySchemas: SchemaRegistry = {
  [GROUP_VERSION]: {
    type: 'object',
    description: 'One version of a group, as discovery lists it.',
    required: ['groupVersion', 'version'],
    properties: { groupVersion: str('"group/version".'), version: str('The version alone.') },
  },
  [SERVER_ADDRESS]: {
    type: 'object',
    description: 'Where clients from a CIDR reach the server.',
    required: ['clientCIDR', 'serverAddress'],
    properties: { clientCIDR: str('The CIDR the rule applies to.'), serverAddress: str('Address (host or host:port) for those clients.') },
  },
  [API_GROUP]: {
    type: 'object',
    description: 'A group, its versions and its preferred version.',
    required: ['name', 'versions'],
    properties: {
      ...typeMeta,
      name: str('The name of the group.'),
      preferredVersion: { allOf: [refTo(GROUP_VERSION)], default: {}, description: 'The version clients should use.' },
      serverAddressByClientCIDRs: list(SERVER_ADDRESS, 'Where clients reach the server, by client CIDR.'),
      versions: list(GROUP_VERSION, 'The versions served.'),
    },
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'APIGroup' }],
  },
  [API_GROUP_LIST]: {
    type: 'object',
    description: 'Every API group the server serves.',
    required: ['groups'],
    properties: { ...typeMeta, groups: list(API_GROUP, 'The groups.') },
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'APIGroupList' }],
  },
  [API_RESOURCE]: {
    type: 'object',
    description: 'One resource of a group-version.',
    required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'],
    properties: {
      categories: strings('Groupings the resource belongs to, such as "all".'),
      group: { type: 'string', description: 'The group of the resource, when it differs from the list.' },
      kind: str('The kind of the resource.'),
      name: str('The plural name of the resource.'),
      namespaced: { type: 'boolean', default: false, description: 'Whether the resource is namespaced.' },
      shortNames: strings('Short aliases.'),
      singularName: str('The singular name.'),
      storageVersionHash: { type: 'string', description: 'A hash of the storage version.' },
      verbs: { type: 'array', description: 'The verbs supported.', items: { type: 'string', default: '' } },
      version: { type: 'string', description: 'The version of the resource, when it differs from the list.' },
    },
  },
  [API_RESOURCE_LIST]: {
    type: 'object',
    description: 'The resources of one group-version.',
    required: ['groupVersion', 'resources'],
    properties: { ...typeMeta, groupVersion: str('The group-version listed.'), resources: list(API_RESOURCE, 'The resources.') },
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'APIResourceList' }],
  },
  [API_VERSIONS]: {
    type: 'object',
    description: 'The versions of the core group, and where clients reach the server.',
    required: ['versions', 'serverAddressByClientCIDRs'],
    properties: {
      ...typeMeta,
      serverAddressByClientCIDRs: list(SERVER_ADDRESS, 'Where clients reach the server, by client CIDR.'),
      versions: { ...strings('The versions served.'), 'x-kubernetes-list-type': 'atomic' as const },
    },
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'APIVersions' }],
  },
  [VERSION_INFO]: {
    type: 'object',
    description: 'The version of the server.',
    required: ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'],
    properties: Object.fromEntries(['buildDate', 'compiler', 'emulationMajor', 'emulationMinor', 'gitCommit', 'gitTreeState', 'gitVersion', 'goVersion', 'major', 'minCompatibilityMajor', 'minCompatibilityMinor', 'minor', 'platform'].map((k) => [k, str(k)])),
  },
};

const CONSUMES = ['application/json', 'application/yaml'];
const get = (operationId: string, description: string, tag: string, schema: string): Operation => ({
  method: 'get',
  operationId,
  description,
  tag,
  params: [],
  consumes: CONSUMES,
  responses: { '200': schema },
});

export function nonResourcePaths(defs: readonly ResourceDefinition[]): PathItem[] {
  const items: PathItem[] = [
    { path: '/api/', params: [], operations: [get('getCoreAPIVersions', 'get available API versions', 'core', API_VERSIONS)] },
    { path: '/apis/', params: [], operations: [get('getAPIVersions', 'get available API versions', 'apis', API_GROUP_LIST)] },
    { path: '/version/', params: [], operations: [get('getCodeVersion', 'get the code version', 'version', VERSION_INFO)] },
  ];
  for (const group of [...new Set(defs.filter((d) => d.group).map((d) => d.group))]) {
    items.push({ path: `/apis/${group}/`, params: [], operations: [get(`get${groupId(group)}APIGroup`, 'get information of a group', groupTagOf(group), API_GROUP)] });
  }
  const gvs = new Map(defs.map((d) => [`${d.group}/${d.version}`, d]));
  for (const d of gvs.values()) {
    items.push({ path: `${rootOf(d)}/`, params: [], operations: [get(`get${groupId(d.group)}${camel(d.version)}APIResources`, 'get available resources', tagOf(d), API_RESOURCE_LIST)] });
  }
  return items;
}
