// The Name column every kind's table starts with, as upstream prints it.

import type { KubeObject } from '../apimachinery/object-meta.js';
import type { TableColumn } from '../registry/resource-definition.js';

export function nameColumn<T extends KubeObject>(): TableColumn<T> {
  return {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: 'Name must be unique within a namespace; cluster-scoped objects are unique in the cluster. Cannot be updated.',
    priority: 0,
    cell: (o) => o.metadata.name ?? '',
  };
}
