// Writes a resource response in the negotiated representation: the object (JSON/YAML) or,
// for get and list, a meta.k8s.io Table. Plain JSON of objects read from storage reuses each
// stored version's serialized bytes (object-codec.ts servedJsonOf): a GET sends them as they
// are, a list puts them between its envelope; the bytes are the same JSON.stringify would make.

import type { KubeObject, ListMeta } from '../../../apimachinery/object-meta.js';
import { buildTable, type TableColumnSource } from '../../../apimachinery/table.js';
import { apiVersionOf } from '../../../registry/resource-definition.js';
import type { HandlerInput } from '../endpoint.js';
import { header } from '../endpoint.js';
import { negotiateResponse } from '../negotiation.js';
import { writeBody, writeSerialized } from '../response-writer.js';
import { servedJsonOf } from '../../../registry/object-codec.js';
import { JoinedJson } from '../joined-json.js';
import { tableIncludeObject } from '../query-options.js';

export function respondObject(input: HandlerInput, code: number, obj: unknown, tableAllowed = false): void | Promise<void> {
  const format = negotiateResponse(header(input.req, 'accept'), tableAllowed);
  if (format.kind === 'table') {
    const o = obj as KubeObject;
    const table = buildTable(input.definition.table as readonly TableColumnSource<KubeObject>[], [o], {
      includeObject: tableIncludeObject(input.query),
      now: new Date(),
      apiVersion: format.apiVersion,
      listMeta: { resourceVersion: o.metadata.resourceVersion ?? '' },
    });
    return writeBody(input.reply, code, table, { format: { kind: 'json' }, pretty: input.pretty, warnings: input.ctx.warnings });
  }
  const cached = format.kind === 'json' && !input.pretty ? servedJsonOf(obj as KubeObject) : undefined;
  if (cached) return writeSerialized(input.reply, code, 'application/json', cached, input.ctx.warnings);
  return writeBody(input.reply, code, obj, { format, pretty: input.pretty, warnings: input.ctx.warnings });
}

export function respondList(input: HandlerInput, items: KubeObject[], listMeta: ListMeta, tableAllowed = true): void | Promise<void> {
  const format = negotiateResponse(header(input.req, 'accept'), tableAllowed);
  const def = input.definition;
  if (format.kind === 'table') {
    const table = buildTable(def.table as readonly TableColumnSource<KubeObject>[], items, {
      includeObject: tableIncludeObject(input.query),
      now: new Date(),
      apiVersion: format.apiVersion,
      listMeta,
    });
    return writeBody(input.reply, 200, table, { format: { kind: 'json' }, pretty: input.pretty, warnings: input.ctx.warnings });
  }
  const list = { kind: def.listKind, apiVersion: apiVersionOf(def), metadata: listMeta, items };
  if (format.kind === 'json' && !input.pretty) return writeSerialized(input.reply, 200, 'application/json', jsonList(list), input.ctx.warnings);
  return writeBody(input.reply, 200, list, { format, pretty: input.pretty, warnings: input.ctx.warnings });
}

/**
 * `JSON.stringify(list)` and a newline, joined from each stored item's cached bytes (shared, not
 * copied until written: joined-json.ts); an item with none is serialized here.
 */
function jsonList(list: { kind: string; apiVersion: string; metadata: ListMeta; items: KubeObject[] }): JoinedJson {
  const head = Buffer.from(`{"kind":${JSON.stringify(list.kind)},"apiVersion":${JSON.stringify(list.apiVersion)},"metadata":${JSON.stringify(list.metadata)},"items":[`);
  const items = list.items.map((item) => servedJsonOf(item) ?? Buffer.from(`${JSON.stringify(item)}\n`));
  return new JoinedJson(head, items, LIST_TAIL);
}

const LIST_TAIL = Buffer.from(']}\n');
