// POST <collection>: 201 with the stored object (also for dry runs, as kube-apiserver).

import { header, type HandlerInput } from '../endpoint.js';
import { decodeObjectBody } from '../object-body.js';
import { writeQuery } from '../query-options.js';
import { respondObject } from './respond.js';

export async function handleCreate(input: HandlerInput): Promise<void> {
  const q = writeQuery(input.query, header(input.req, 'user-agent'), 'CreateOptions');
  input.ctx.dryRun = q.dryRun;
  const obj = await decodeObjectBody(input.definition, input.body, header(input.req, 'content-type'), q.fieldValidation, input.ctx.warnings, input.ctx);
  const created = await input.storage.create(input.ctx, obj, { fieldManager: q.fieldManager });
  return respondObject(input, 201, created);
}
