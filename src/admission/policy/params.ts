// The params of one binding (policy/generic CollectParams): none when the policy has no paramKind
// or the binding no paramRef; the object named (from the informer, or read directly when the
// informer has not seen it yet), or every object the selector selects; none found is an error
// under parameterNotFoundAction Deny. Every kind served is cluster-scoped.

import type { KubeObject } from '../../apimachinery/object-meta.js';
import { internalContext, silentLogger } from '../../apimachinery/request-context.js';
import { isStatusError } from '../../apimachinery/status-error.js';
import type { ParamRef, ParamKind } from '../../resources/admissionregistration/types.js';
import { ADMISSION_USER, readyWithin } from '../informers.js';
import { compileSelector } from '../matching/selectors.js';
import type { ParamSource } from './policy-source.js';

/** `[undefined]`: evaluate once without params; `[]`: nothing to evaluate. */
export type Params = (KubeObject | undefined)[];

/** ParamKind's generated String(), as kube prints it in these messages. */
const paramKindString = (pk: ParamKind): string => `&ParamKind{APIVersion:${pk.apiVersion ?? ''},Kind:${pk.kind ?? ''},}`;

export async function collectParams(paramKind: ParamKind | undefined, source: ParamSource | undefined, ref: ParamRef | undefined): Promise<Params | { error: string }> {
  if (!paramKind || !ref) return [undefined];
  if (!source) return { error: `paramKind kind \`${paramKindString(paramKind)}\` not known` };
  // A param informer just started gets a moment to list before it is used (kube waits 1 s).
  if (!(await readyWithin(source, 1000))) return { error: `paramKind kind \`${paramKindString(paramKind)}\` not yet synced to use for admission` };
  if (ref.namespace) return { error: 'paramRef.namespace must not be provided for a cluster-scoped `paramKind`' };
  let params: KubeObject[];
  if (ref.name) {
    if (ref.selector) return { error: 'paramRef.name and paramRef.selector are mutually exclusive' };
    let found = source.informer.get(ref.name);
    if (!found) {
      try {
        found = await source.storage.get(internalContext(ADMISSION_USER, silentLogger), ref.name, {});
      } catch (err) {
        if (!(isStatusError(err) && err.code === 404)) return { error: (err as Error).message };
      }
    }
    params = found ? [found] : [];
  } else if (ref.selector) {
    const sel = compileSelector(ref.selector);
    if ('error' in sel) return { error: sel.error };
    params = source.informer.list().filter((o) => sel.matches(o.metadata.labels ?? {}));
  } else {
    return { error: 'one of name or selector must be provided' };
  }
  if (params.length === 0 && ref.parameterNotFoundAction === 'Deny') return { error: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
  return params;
}
