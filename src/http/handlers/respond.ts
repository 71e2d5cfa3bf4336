// Writes a resource response in the negotiated representation: the object (JSON/YAML) or,
// for get and list, a meta.k8s.io Table. Plain JSON of objects read from storage reuses each
// stored version's serialized bytes (object-codec.ts servedJsonOf): a GET sends them as they
// are, a list puts them between its envelope; the bytes are the same JSON.stringify would make.

import type { KubeObject, ListMeta } from '../../apimachinery/object-meta.js';
import { buildTable, parseIncludeObject, type TableColumnSource } from '../../apimachinery/table.js';
import { apiVersionOf } from '../../registry/resource-definition.js';
import type { HandlerInput } from '../endpoint.js';
import { header } from '../endpoint.js';
import { negotiateResponse } from '../negotiation.js';
import { writeBody, writeSerialized } from '../response-writer.js';
import { servedJsonOf } from '../../registry/object-codec.js';

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
  const cached = format.kind === 'json' && !input.pretty ? servedJsonOf(obj as KubeObject) : undefined;
  if (cached) return writeSerialized(input.reply, code, 'application/json', cached, input.ctx.warnings);
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
  if (format.kind === 'json' && !input.pretty) return writeSerialized(input.reply, 200, 'application/json', jsonList(list), input.ctx.warnings);
  writeBody(input.reply, 200, list, { format, pretty: input.pretty, warnings: input.ctx.warnings });
}

const COMMA = Buffer.from(',');

/** `JSON.stringify(list)` and a newline, with each stored item's cached bytes copied in. */
function jsonList(list: { kind: string; apiVersion: string; metadata: ListMeta; items: KubeObject[] }): Buffer {
  const parts: Buffer[] = [Buffer.from(`{"kind":${JSON.stringify(list.kind)},"apiVersion":${JSON.stringify(list.apiVersion)},"metadata":${JSON.stringify(list.metadata)},"items":[`)];
  list.items.forEach((item, i) => {
    if (i) parts.push(COMMA);
    const cached = servedJsonOf(item);
    parts.push(cached ? cached.subarray(0, cached.length - 1) : Buffer.from(JSON.stringify(item)));
  });
  parts.push(Buffer.from(']}\n'));
  return Buffer.concat(parts);
}
