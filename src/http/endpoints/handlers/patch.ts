// PATCH <collection>/<name>[/status]: JSON, merge and strategic patches are applied to the
// current object and written back (re-applied on a lost race; a resourceVersion inside the patch
// is a precondition). Apply patches go to server-side apply, which may create the object.

import type { KubeObject } from '../../../apimachinery/object-meta.js';
import { nameMismatch } from '../../../apimachinery/status-error.js';
import { checkPatchedNamespace } from '../../../registry/namespaces.js';
import { isNamespaced } from '../../../registry/resource-definition.js';
import { header, type HandlerInput } from '../endpoint.js';
import { checkTypeMeta, validateFields } from '../object-body.js';
import { applyPatch, APPLY_PATCH, parseApplyConfig, parsePatch, patchQuery, patchTypeOf } from '../patch-types.js';
import { respondObject } from './respond.js';

export async function handlePatch(input: HandlerInput): Promise<void> {
  const type = patchTypeOf(header(input.req, 'content-type'));
  const q = patchQuery(input.query, header(input.req, 'user-agent'), type);
  input.ctx.dryRun = q.dryRun;
  const def = input.definition;
  if (type === APPLY_PATCH) {
    const config = await parseApplyConfig(input.body, q.fieldValidation, input.ctx.warnings, input.ctx);
    const out = await input.storage.apply(input.ctx, input.name, config, { fieldManager: q.fieldManager, force: q.force });
    return respondObject(input, out.created ? 201 : 200, out.object);
  }
  const patch = await parsePatch(type, input.body);
  const out = await input.storage.update(
    input.ctx,
    input.name,
    (current) => {
      const patched = applyPatch(type, current as unknown as Record<string, unknown>, patch, def);
      const warnings: string[] = [];
      const obj = validateFields(def, checkTypeMeta(def, patched), [], q.fieldValidation, warnings) as KubeObject;
      for (const w of warnings) if (!input.ctx.warnings.includes(w)) input.ctx.warnings.push(w);
      checkName(obj, input.name);
      if (isNamespaced(def)) checkPatchedNamespace(obj.metadata, input.ctx.requestInfo.namespace);
      return obj;
    },
    { fieldManager: q.fieldManager, retryOnConflict: true },
  );
  return respondObject(input, out.created ? 201 : 200, out.object);
}

/** A patch may not rename the object. */
function checkName(obj: KubeObject, name: string): void {
  const objName = obj.metadata?.name ?? '';
  if (objName !== name) throw nameMismatch(objName, name);
}
