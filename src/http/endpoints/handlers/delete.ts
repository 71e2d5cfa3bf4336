// DELETE <collection>/<name>: a Success Status when the object is gone; the object itself when
// finalizers keep it (202 only when orphanDependents=false was asked, as kube-apiserver).

import { successStatus } from '../../../apimachinery/status-error.js';
import { header, type HandlerInput } from '../endpoint.js';
import { deleteOptions } from '../query-options.js';
import { writeBody } from '../response-writer.js';
import { respondObject } from './respond.js';

export async function handleDelete(input: HandlerInput): Promise<void> {
  const opts = await deleteOptions(input.body, header(input.req, 'content-type'), input.query);
  input.ctx.dryRun = (opts.dryRun ?? []).length > 0;
  const out = await input.storage.delete(input.ctx, input.name, opts);
  if (!out.deleted) {
    return respondObject(input, opts.orphanDependents === false ? 202 : 200, out.object);
  }
  const status = successStatus({ name: input.name, group: input.definition.group, kind: input.definition.plural, uid: out.object.metadata.uid });
  const { code: _code, ...body } = status;
  return writeBody(input.reply, 200, body, { format: { kind: 'json' }, pretty: input.pretty, warnings: input.ctx.warnings });
}
