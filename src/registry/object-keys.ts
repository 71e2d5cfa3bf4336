// Where objects live in the store. A kind's objects share one prefix, `/registry/<group>/<plural>/`
// (a core kind's, `/registry/<plural>/`, as kube lays out its core group); a namespaced object's
// key adds its namespace, `<prefix><namespace>/<name>`, so one namespace's objects are one range
// and every namespace's are the whole prefix.

import type { ResourceDefinition } from './resource-definition.js';

type KeyedDefinition = Pick<ResourceDefinition, 'group' | 'plural' | 'storedAs'>;

/** The key prefix of a kind's objects (a kind stored as another kind: that kind's prefix). */
export function keyPrefixOf(def: KeyedDefinition): string {
  if (def.storedAs) return keyPrefixOf(def.storedAs.definition);
  return def.group ? `/registry/${def.group}/${def.plural}/` : `/registry/${def.plural}/`;
}

/** The prefix of what a request may see: one namespace's objects, or all of the kind's (namespace ''). */
export function rangePrefix(prefix: string, namespaced: boolean, namespace: string): string {
  return namespaced && namespace ? `${prefix}${namespace}/` : prefix;
}

/** One object's key. */
export function objectKey(prefix: string, namespaced: boolean, namespace: string, name: string): string {
  return namespaced ? `${prefix}${namespace}/${name}` : prefix + name;
}
