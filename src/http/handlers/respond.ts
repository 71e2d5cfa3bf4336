// Writes a resource response in the negotiated representation: the object (JSON/YAML) or,
// for get and list, a meta.k8s.io Table.

import type { KubeObject, ListMeta } from '../../apimachinery/object-meta.js';
import { buildTable, parseIncludeObject, type TableColumnSource } from '../../apimachinery/table.js';
import { apiVersionOf } from '../../registry/resource-definition.js';
import type { HandlerInput } from '../endpoint.js';
import { header } from '../endpoint.js';
import { negotiateResponse } from '../negotiation.js';
import { writeBody } from '../response-writer.js';

export function respondObject(input: HandlerInput, code: number, obj: unknown, tableAllowed = false): void {
  const format = negotiateResponse(header(input.req, 'accept'), tableAllowed);
  if (format.kind === 'table') {
    const o = obj as KubeObject;
    const table = buildTable(input.definition.table as readonly TableColumnSource<KubeObject>[], [o], {
      includeObject: parseIncludeObject(input.query.get('includeObject') ?? undefined),
      now: new Date(),
      apiVersion: format.apiVersion,
      listMeta: { resourceVersion: o.metadata.resourceVersion ?? '' },
    });
    writeBody(input.reply, code, table, { format: { kind: 'json' }, pretty: input.pretty, warnings: input.ctx.warnings });
    return;
  }
  writeBody(input.reply, code, obj, { format, pretty: input.pretty, warnings: input.ctx.warnings });
}

export function respondList(input: HandlerInput, items: KubeObject[], listMeta: ListMeta, tableAllowed = true): void {
  const format = negotiateResponse(header(input.req, 'accept'), tableAllowed);
  const def = input.definition;
  if (format.kind === 'table') {
    const table = buildTable(def.table as readonly TableColumnSource<KubeObject>[], items, {
      includeObject: parseIncludeObject(input.query.get('includeObject') ?? undefined),
      now: new Date(),
      apiVersion: format.apiVersion,
      listMeta,
    });
    writeBody(input.reply, 200, table, { format: { kind: 'json' }, pretty: input.pretty, warnings: input.ctx.warnings });
    return;
  }
  const list = { kind: def.listKind, apiVersion: apiVersionOf(def), metadata: listMeta, items };
  writeBody(input.reply, 200, list, { format, pretty: input.pretty, warnings: input.ctx.warnings });
}
