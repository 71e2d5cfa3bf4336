// Discovery documents built from the resource definitions: aggregated discovery
// (apidiscovery.k8s.io v2 / v2beta1, only when asked for) and the legacy APIGroupList,
// APIGroup and APIResourceList that `kubectl auth can-i` and client-node use.

import { createHash } from 'node:crypto';
import { parseAccept } from '../../endpoints/negotiation.js';
import type { ResourceDefinition } from '../../../registry/resource-definition.js';

/** What discovery needs of a resource (a ResourceDefinition, or a create-only review kind). */
export type DiscoveryResource = Pick<ResourceDefinition, 'group' | 'version' | 'kind' | 'plural' | 'singular' | 'scope' | 'shortNames' | 'categories' | 'verbs'> & {
  subresources: readonly { name: string; verbs: readonly string[] }[];
};

export const AGGREGATED_V2_CONTENT_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
export const AGGREGATED_V2BETA1_CONTENT_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

const sortedVerbs = (verbs: readonly string[]): string[] => [...verbs].sort();

/**
 * The named groups (the core group, '', is discovered at /api, never at /apis), each version's
 * resources in kube's order (by name, as its installer sorts its paths).
 */
function groupsOf(defs: readonly DiscoveryResource[]): Map<string, Map<string, DiscoveryResource[]>> {
  const groups = new Map<string, Map<string, DiscoveryResource[]>>();
  for (const d of defs) {
    if (!d.group) continue;
    const versions = groups.get(d.group) ?? new Map<string, DiscoveryResource[]>();
    versions.set(d.version, [...(versions.get(d.version) ?? []), d].sort((a, b) => (a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0)));
    groups.set(d.group, versions);
  }
  return groups;
}

/** The core group's v1 resources, by name. */
const coreResources = (defs: readonly DiscoveryResource[]): DiscoveryResource[] =>
  defs.filter((d) => !d.group && d.version === 'v1').sort((a, b) => (a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0));

function aggregatedResource(d: DiscoveryResource): object {
  const r: Record<string, unknown> = {
    resource: d.plural,
    responseKind: { group: d.group, version: d.version, kind: d.kind },
    scope: d.scope,
    singularResource: d.singular,
    verbs: sortedVerbs(d.verbs),
  };
  if (d.shortNames.length) r.shortNames = [...d.shortNames];
  if (d.categories.length) r.categories = [...d.categories];
  if (d.subresources.length) {
    r.subresources = d.subresources.map((s) => ({ subresource: s.name, responseKind: { group: d.group, version: d.version, kind: d.kind }, verbs: sortedVerbs(s.verbs) }));
  }
  return r;
}

export function aggregatedDiscovery(defs: readonly DiscoveryResource[], version: 'v2' | 'v2beta1'): object {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: [...groupsOf(defs)].map(([group, versions]) => ({
      metadata: { name: group, creationTimestamp: null },
      versions: [...versions].map(([v, ds]) => ({ version: v, resources: ds.map(aggregatedResource), freshness: 'Current' })),
    })),
  };
}

/**
 * The core group at /api as aggregated discovery: kube always serves it, with version v1 and the
 * core kinds served here (resources omitted when there are none, as Go's omitempty does);
 * clients then see the core group exactly as the legacy /api and /api/v1 show it.
 */
export function coreAggregatedDiscovery(defs: readonly DiscoveryResource[], version: 'v2' | 'v2beta1'): object {
  const resources = coreResources(defs).map(aggregatedResource);
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: [{ metadata: { creationTimestamp: null }, versions: [{ version: 'v1', ...(resources.length ? { resources } : {}), freshness: 'Current' }] }],
  };
}

/** Legacy GET /api: the core group's versions, and the address clients reach the server at. */
export function coreAPIVersions(serverAddress: string): object {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

/** Legacy GET /api/v1: the core group's resources. */
export function coreAPIResourceList(defs: readonly DiscoveryResource[]): object {
  return { kind: 'APIResourceList', groupVersion: 'v1', resources: coreResources(defs).flatMap(legacyResources) };
}

/** A resource and its subresources as a legacy APIResourceList lists them. */
function legacyResources(d: DiscoveryResource): object[] {
  const namespaced = d.scope === 'Namespaced';
  const r: Record<string, unknown> = { name: d.plural, singularName: d.singular, namespaced, kind: d.kind, verbs: sortedVerbs(d.verbs) };
  if (d.shortNames.length) r.shortNames = [...d.shortNames];
  if (d.categories.length) r.categories = [...d.categories];
  return [r, ...d.subresources.map((s) => ({ name: `${d.plural}/${s.name}`, singularName: '', namespaced, kind: d.kind, verbs: sortedVerbs(s.verbs) }))];
}

function apiGroupOf(group: string, versions: Map<string, DiscoveryResource[]>): object {
  const list = [...versions.keys()].map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions: list, preferredVersion: list[0] };
}

export function apiGroupList(defs: readonly DiscoveryResource[]): object {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: [...groupsOf(defs)].map(([g, vs]) => apiGroupOf(g, vs)) };
}

export function apiGroup(defs: readonly DiscoveryResource[], group: string): object | undefined {
  const versions = groupsOf(defs).get(group);
  return versions ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroupOf(group, versions) } : undefined;
}

export function apiResourceList(defs: readonly DiscoveryResource[], group: string, version: string): object | undefined {
  const ds = groupsOf(defs).get(group)?.get(version);
  if (!ds) return undefined;
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/${version}`, resources: ds.flatMap(legacyResources) };
}

/** Aggregated discovery only for clients that list it in Accept, preferring v2; else legacy. */
export function negotiateDiscovery(accept: string | undefined): 'v2' | 'v2beta1' | 'legacy' {
  for (const r of parseAccept(accept)) {
    if (r.params.g === 'apidiscovery.k8s.io' && r.params.as === 'APIGroupDiscoveryList') {
      if (r.params.v === 'v2') return 'v2';
      if (r.params.v === 'v2beta1') return 'v2beta1';
      continue;
    }
    if (r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*') return 'legacy';
  }
  return 'legacy';
}

export const discoveryEtag = (body: string): string => `"${createHash('sha512').update(body).digest('hex').slice(0, 64).toUpperCase()}"`;
