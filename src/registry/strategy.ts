// The per-kind behaviour the generic store calls, in kube-apiserver's order:
// prepareForCreate → validate → (admission) → write, and prepareForUpdate → validateUpdate → … .
// Build strategies with defineStrategy() so every hook has a typed no-op default.

import type { FieldError } from '../apimachinery/field-error.js';
import type { KubeObject } from '../apimachinery/object-meta.js';
import type { RequestContext } from '../apimachinery/request-context.js';

export interface Strategy<T extends KubeObject> {
  /** Clear or default fields on create (e.g. wipe status). Mutates `obj`. */
  prepareForCreate(ctx: RequestContext, obj: T): void;
  /** Carry fields over from `old` (e.g. keep status, bump generation). Mutates `obj`. */
  prepareForUpdate(ctx: RequestContext, obj: T, old: T): void;
  /** Kind-specific validation on create, metadata included (name rules differ per kind). */
  validate(ctx: RequestContext, obj: T): FieldError[];
  /** Kind-specific validation on update, metadata-update rules included. */
  validateUpdate(ctx: RequestContext, obj: T, old: T): FieldError[];
  warningsOnCreate(ctx: RequestContext, obj: T): string[];
  warningsOnUpdate(ctx: RequestContext, obj: T, old: T): string[];
  /** PUT of a missing object creates it. */
  readonly allowCreateOnUpdate: boolean;
  /** PUT without metadata.resourceVersion is applied over the latest version (else 422). */
  readonly allowUnconditionalUpdate: boolean;
  /** Top-level field paths this endpoint may not change; server-side apply ignores them (e.g. `status` on the main resource). */
  readonly resetFields: readonly string[];
}

type StrategyHooks<T extends KubeObject> = Partial<Strategy<T>>;

/** Fills every hook the caller did not give with a no-op (and conservative flags). */
export function defineStrategy<T extends KubeObject>(hooks: StrategyHooks<T>): Strategy<T> {
  return {
    prepareForCreate: () => {},
    prepareForUpdate: () => {},
    validate: () => [],
    validateUpdate: () => [],
    warningsOnCreate: () => [],
    warningsOnUpdate: () => [],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    resetFields: [],
    ...hooks,
  };
}
