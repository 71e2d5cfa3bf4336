// PATCH <collection>/<name>[/status]: applies the patch to the current object and updates it,
// re-applying on a lost race; a resourceVersion inside the patch acts as a precondition.

import type { KubeObject } from '../../apimachinery/object-meta.js';
import { header, type HandlerInput } from '../endpoint.js';
import { checkTypeMeta, validateFields } from '../object-body.js';
import { applyPatch, parsePatch, patchTypeOf } from '../patch-types.js';
import { writeQuery } from '../query-options.js';
import { respondObject } from './respond.js';

export async function handlePatch(input: HandlerInput): Promise<void> {
  const type = patchTypeOf(header(input.req, 'content-type'));
  const q = writeQuery(input.query, header(input.req, 'user-agent'), 'PatchOptions');
  input.ctx.dryRun = q.dryRun;
  const patch = parsePatch(type, input.body);
  const def = input.definition;
  const out = await input.storage.update(
    input.ctx,
    input.name,
    (current) => {
      const patched = applyPatch(type, current as unknown as Record<string, unknown>, patch, def);
      const warnings: string[] = [];
      const obj = validateFields(def, checkTypeMeta(def, patched), [], q.fieldValidation, warnings) as KubeObject;
      for (const w of warnings) if (!input.ctx.warnings.includes(w)) input.ctx.warnings.push(w);
      return obj;
    },
    { fieldManager: q.fieldManager, retryOnConflict: true },
  );
  respondObject(input, out.created ? 201 : 200, out.object);
}
