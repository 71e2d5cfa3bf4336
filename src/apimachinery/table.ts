// meta.k8s.io Table: the server-side printing kubectl asks for with
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`.

import type { KubeObject, ListMeta } from './object-meta.js';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

/** A column plus how to compute its cell (structurally the registry's TableColumn). */
export interface TableColumnSource<T> extends TableColumnDefinition {
  cell(obj: T, now: Date): string | number | boolean | null;
  /** A cell kube's printer adds without declaring its column (IPAddress's Age): in rows only. */
  undeclared?: boolean;
}

export interface TableRow {
  cells: unknown[];
  object?: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: ListMeta;
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableOptions {
  includeObject: IncludeObject;
  now: Date;
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`, as the client asked. */
  apiVersion: string;
  listMeta?: ListMeta;
  /** Watch events after the first carry no column definitions, as upstream. */
  omitColumnDefinitions?: boolean;
}

/** `includeObject` query value; anything else is the default (Metadata). */
export const parseIncludeObject = (v: string | undefined): IncludeObject => (v === 'None' || v === 'Object' ? v : 'Metadata');

function rowObject<T extends KubeObject>(obj: T, include: IncludeObject, apiVersion: string): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata };
}

export function buildTable<T extends KubeObject>(columns: readonly TableColumnSource<T>[], objects: readonly T[], opts: TableOptions): Table {
  return {
    kind: 'Table',
    apiVersion: opts.apiVersion,
    metadata: opts.listMeta ?? {},
    columnDefinitions: opts.omitColumnDefinitions
      ? null
      : columns.filter((c) => !c.undeclared).map(({ name, type, format, description, priority }) => ({ name, type, format, description, priority })),
    rows: objects.map((obj) => {
      const row: TableRow = { cells: columns.map((c) => c.cell(obj, opts.now)) };
      const object = rowObject(obj, opts.includeObject, opts.apiVersion);
      if (object !== undefined) row.object = object;
      return row;
    }),
  };
}
