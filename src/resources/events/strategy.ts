// How the generic store treats Events (kube's eventStrategy): validation by the request's
// group-version (validation.ts); a replace may create (AllowCreateOnUpdate) and needs no
// resourceVersion; nothing is kept from the stored object. Objects are written in kube's shape
// (shape.ts) with their times as Go writes them. The events.k8s.io/v1 strategy validates the
// core shape of its object, as kube validates the internal one.

import type { FieldError } from '../../apimachinery/field-error.js';
import type { RequestContext } from '../../apimachinery/request-context.js';
import { defineStrategy } from '../../registry/strategy.js';
import { coreShape, eventsV1Shape, toCore } from './shape.js';
import { CORE_TIME_FIELDS, EVENTS_V1_TIME_FIELDS, normalizeTimes } from './times.js';
import type { CoreEvent, EventsV1Event } from './types.js';
import { commonMetaCreate, commonMetaUpdate, validateEventCreate, validateEventUpdate, type GroupVersion } from './validation.js';

/** kube's requestGroupVersion: the group-version the request was made in (empty for none). */
const requestGroupVersion = (ctx: RequestContext): GroupVersion => ({ group: ctx.requestInfo.apiGroup, version: ctx.requestInfo.apiVersion });

/** Replaces `obj`'s members with `shaped`'s (the store's hooks change the object they are given). */
function assignShape(obj: object, shaped: object): void {
  for (const k of Object.keys(obj)) delete (obj as Record<string, unknown>)[k];
  Object.assign(obj, shaped);
}

const prepareCore = (obj: CoreEvent): void => {
  normalizeTimes(obj as unknown as Record<string, unknown>, CORE_TIME_FIELDS, 'v1');
  assignShape(obj, coreShape(obj));
};

const prepareEventsV1 = (obj: EventsV1Event): void => {
  normalizeTimes(obj as unknown as Record<string, unknown>, EVENTS_V1_TIME_FIELDS, 'v1');
  assignShape(obj, eventsV1Shape(obj));
};

/** kube's BeforeCreate order: the kind's validation, then (only when it passed) the common metadata rules. */
function validateCreate(ctx: RequestContext, e: CoreEvent): FieldError[] {
  const errs = validateEventCreate(e, requestGroupVersion(ctx));
  return errs.length ? errs : commonMetaCreate(e);
}

/** kube's BeforeUpdate order: the common metadata rules, then the kind's. */
const validateUpdate = (ctx: RequestContext, e: CoreEvent, old: CoreEvent): FieldError[] => [...commonMetaUpdate(e, old), ...validateEventUpdate(e, old, requestGroupVersion(ctx))];

export const coreEventStrategy = defineStrategy<CoreEvent>({
  prepareForCreate: (_ctx, obj) => prepareCore(obj),
  prepareForUpdate: (_ctx, obj) => prepareCore(obj),
  validate: validateCreate,
  validateUpdate,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
});

export const eventsV1Strategy = defineStrategy<EventsV1Event>({
  prepareForCreate: (_ctx, obj) => prepareEventsV1(obj),
  prepareForUpdate: (_ctx, obj) => prepareEventsV1(obj),
  validate: (ctx, obj) => validateCreate(ctx, toCore(obj)),
  validateUpdate: (ctx, obj, old) => validateUpdate(ctx, toCore(obj), toCore(old)),
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
});
