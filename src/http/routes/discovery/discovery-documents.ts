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

function groupsOf(defs: readonly DiscoveryResource[]): Map<string, Map<string, DiscoveryResource[]>> {
  const groups = new Map<string, Map<string, DiscoveryResource[]>>();
  for (const d of defs) {
    const versions = groups.get(d.group) ?? new Map<string, DiscoveryResource[]>();
    versions.set(d.version, [...(versions.get(d.version) ?? []), d]);
    groups.set(d.group, versions);
  }
  return groups;
}

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
 * The core group at /api as aggregated discovery: kube always serves it, with version v1. Every
 * kind here is in a named group, so v1 lists no resources (omitted when empty, as Go's
 * omitempty does); clients then see the core group exactly as the legacy /api and /api/v1 show it.
 */
export function coreAggregatedDiscovery(version: 'v2' | 'v2beta1'): object {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: [{ metadata: { creationTimestamp: null }, versions: [{ version: 'v1', freshness: 'Current' }] }],
  };
}

/** Legacy GET /api: the core group's versions, and the address clients reach the server at. */
export function coreAPIVersions(serverAddress: string): object {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

/** Legacy GET /api/v1: the core group's resources, none here (an honest empty list). */
export function coreAPIResourceList(): object {
  return { kind: 'APIResourceList', groupVersion: 'v1', resources: [] };
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
  const resources: object[] = [];
  for (const d of ds) {
    const r: Record<string, unknown> = { name: d.plural, singularName: d.singular, namespaced: false, kind: d.kind, verbs: sortedVerbs(d.verbs) };
    if (d.shortNames.length) r.shortNames = [...d.shortNames];
    if (d.categories.length) r.categories = [...d.categories];
    resources.push(r);
    for (const s of d.subresources) resources.push({ name: `${d.plural}/${s.name}`, singularName: '', namespaced: false, kind: d.kind, verbs: sortedVerbs(s.verbs) });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/${version}`, resources };
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
