// PUT <collection>/<name>[/status]: replace, with optimistic concurrency on metadata.resourceVersion.

import { nameMismatch } from '../../../apimachinery/status-error.js';
import { ensureObjectNamespace } from '../../../registry/namespaces.js';
import { isNamespaced } from '../../../registry/resource-definition.js';
import { header, type HandlerInput } from '../endpoint.js';
import { decodeObjectBody } from '../object-body.js';
import { writeQuery } from '../query-options.js';
import { respondObject } from './respond.js';

export async function handleUpdate(input: HandlerInput): Promise<void> {
  const q = writeQuery(input.query, header(input.req, 'user-agent'), 'UpdateOptions');
  input.ctx.dryRun = q.dryRun;
  const obj = await decodeObjectBody(input.definition, input.body, header(input.req, 'content-type'), q.fieldValidation, input.ctx.warnings, input.ctx);
  // kube's order: the namespace first (taken from the path when the body has none), then the name.
  ensureObjectNamespace(obj.metadata, isNamespaced(input.definition), input.ctx.requestInfo.namespace);
  const bodyName = obj.metadata.name ?? '';
  if (bodyName && bodyName !== input.name) {
    throw nameMismatch(bodyName, input.name);
  }
  obj.metadata.name = input.name;
  // A kind that allows it (Events) creates the object a replace names when there is none (201).
  const out = await input.storage.update(input.ctx, input.name, () => obj, { fieldManager: q.fieldManager, createIfMissing: true });
  return respondObject(input, out.created ? 201 : 200, out.object);
}
