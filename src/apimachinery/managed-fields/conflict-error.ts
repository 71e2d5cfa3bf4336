// The 409 an apply answers when it would change fields other managers own, worded as
// kube-apiserver words it (kubectl prints the message and its help text from it).

import { conflictWithCauses, type StatusCause, type StatusError } from '../status-error.js';
import { formatPath, type FieldPathElements } from './field-set.js';
import type { Ownership } from './managed-fields-codec.js';

export interface FieldConflict {
  /** The manager identifier (managerIdentifier()). */
  id: string;
  owner: Ownership;
  path: FieldPathElements;
}

/** `"name"`, plus the subresource and, for updaters, the apiVersion they wrote with. */
export function describeManager(o: Pick<Ownership, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  let s = JSON.stringify(o.manager);
  if (o.subresource) s += ` with subresource ${JSON.stringify(o.subresource)}`;
  if (o.operation === 'Update') s += ` using ${o.apiVersion}`;
  return s;
}

export function applyConflictError(conflicts: readonly FieldConflict[]): StatusError {
  const sorted = [...conflicts].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const causes: StatusCause[] = sorted.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${describeManager(c.owner)}`,
    field: formatPath(c.path),
  }));
  return conflictWithCauses(conflictMessage(sorted), causes);
}

function conflictMessage(conflicts: readonly FieldConflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    return `Apply failed with 1 conflict: conflict with ${describeManager(c.owner)}: ${formatPath(c.path)}`;
  }
  const lines: string[] = [];
  let current = '';
  for (const c of conflicts) {
    if (c.id !== current) {
      current = c.id;
      lines.push(`conflicts with ${describeManager(c.owner)}:`);
    }
    lines.push(`- ${formatPath(c.path)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
