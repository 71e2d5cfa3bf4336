// The one error type that crosses layers: a Kubernetes metav1.Status with its HTTP code.
// Constructors mirror apimachinery's k8s.io/apimachinery/pkg/api/errors so that messages,
// reasons and details match what kubectl expects. Rendering happens in one place (http/).

import { aggregateFieldErrors, fieldErrorBody, MAX_REPORTED_FIELD_ERRORS, type FieldError } from './field-error.js';

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'Timeout'
  | 'ServerTimeout'
  | 'TooManyRequests'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'ServiceUnavailable';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { resourceVersion?: string; continue?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** Group + resource (plural), printed `resource.group` (or just `resource` for the core group). */
export interface GroupResource {
  group: string;
  resource: string;
}
/** Group + kind, printed `Kind.group`. */
export interface GroupKind {
  group: string;
  kind: string;
}

export const groupResourceString = (gr: GroupResource): string => (gr.group ? `${gr.resource}.${gr.group}` : gr.resource);
export const groupKindString = (gk: GroupKind): string => (gk.group ? `${gk.kind}.${gk.group}` : gk.kind);

export class StatusError extends Error {
  constructor(readonly status: Status) {
    super(status.message ?? status.reason ?? 'unknown error');
    this.name = 'StatusError';
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): StatusReason | undefined {
    return this.status.reason;
  }
}

export const isStatusError = (e: unknown): e is StatusError => e instanceof StatusError;

function failure(code: number, reason: StatusReason, message: string, details?: StatusDetails): StatusError {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) status.details = details;
  return new StatusError(status);
}

/** A success Status, e.g. the answer to a delete when no object is returned. */
export function successStatus(details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
  if (details) s.details = details;
  return s;
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return failure(404, 'NotFound', `${groupResourceString(gr)} "${name}" not found`, { name, group: gr.group, kind: gr.resource });
}

/** A 404 for a path that names no resource at all (kube's "the server could not find the requested resource"). */
export function pathNotFound(): StatusError {
  return failure(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return failure(409, 'AlreadyExists', `${groupResourceString(gr)} "${name}" already exists`, { name, group: gr.group, kind: gr.resource });
}

export const OBJECT_MODIFIED = 'the object has been modified; please apply your changes to the latest version and try again';

export function conflict(gr: GroupResource, name: string, why: string = OBJECT_MODIFIED): StatusError {
  return failure(409, 'Conflict', `Operation cannot be fulfilled on ${groupResourceString(gr)} "${name}": ${why}`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

/** 409 with explicit causes (server-side apply field-manager conflicts). */
export function conflictWithCauses(message: string, causes: StatusCause[], gr?: GroupResource, name?: string): StatusError {
  const details: StatusDetails = { causes };
  if (gr) Object.assign(details, { group: gr.group, kind: gr.resource });
  if (name) details.name = name;
  return failure(409, 'Conflict', message, details);
}

export function invalid(gk: GroupKind, name: string, errors: readonly FieldError[]): StatusError {
  // Bounded like the message (see MAX_REPORTED_FIELD_ERRORS): the first errors, in order.
  const causes = errors.slice(0, MAX_REPORTED_FIELD_ERRORS).map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  const message = errors.length
    ? `${groupKindString(gk)} "${name}" is invalid: ${aggregateFieldErrors(errors)}`
    : `${groupKindString(gk)} "${name}" is invalid`;
  return failure(422, 'Invalid', message, { name, group: gk.group, kind: gk.kind, causes });
}

/** 422 without kind details (kube's NewUnprocessableEntity-style, e.g. failed JSON-patch test). */
export function unprocessable(message: string): StatusError {
  return failure(422, 'Invalid', message, {});
}

/** A body (or patched object) naming another object than the URL does. */
export function nameMismatch(objectName: string, urlName: string): StatusError {
  return badRequest(`the name of the object (${objectName}) does not match the name on the URL (${urlName})`);
}

export function badRequest(message: string): StatusError {
  return failure(400, 'BadRequest', message);
}

/**
 * 431 for a request head or HTTP/2 header list past the server's limit, as Go's server refuses it
 * before kube's handlers: a Status without a reason (Go's answer names none).
 */
export function requestHeaderFieldsTooLarge(): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'request header fields too large', code: 431 });
}

export function unauthorized(message = 'Unauthorized'): StatusError {
  return failure(401, 'Unauthorized', message);
}

/** `<resource>.<group> "<name>" is forbidden: <why>`, or without the name part when name is empty. */
export function forbidden(gr: GroupResource, name: string, why: string): StatusError {
  const subject = name ? `${groupResourceString(gr)} "${name}"` : groupResourceString(gr);
  return failure(403, 'Forbidden', `${subject} is forbidden: ${why}`, { name: name || undefined, group: gr.group, kind: gr.resource });
}

/** 403 for non-resource paths: `forbidden: User "x" cannot get path "/foo"`. */
export function forbiddenPath(why: string): StatusError {
  return failure(403, 'Forbidden', `forbidden: ${why}`, {});
}

/** go-restful's answer when a path is routed but not for the request's method (kube's serviceErrorHandler renders it). */
export function methodNotAllowed(): StatusError {
  return failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function methodNotSupported(gr: GroupResource, action: string): StatusError {
  return failure(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${groupResourceString(gr)}"`, {
    group: gr.group,
    kind: gr.resource,
  });
}

/** 410 Expired: a resourceVersion or continue token older than the retained history. */
export function resourceExpired(message: string): StatusError {
  return failure(410, 'Expired', message);
}

export function gone(message: string): StatusError {
  return failure(410, 'Gone', message);
}

export function notAcceptable(message: string): StatusError {
  return failure(406, 'NotAcceptable', message);
}

export function unsupportedMediaType(contentType: string, accepted: readonly string[]): StatusError {
  return failure(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    { causes: [{ reason: 'UnexpectedServerResponse', message: contentType }] },
  );
}

export function requestEntityTooLarge(message: string): StatusError {
  return failure(413, 'RequestEntityTooLarge', message);
}

export function tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return failure(429, 'TooManyRequests', message, { retryAfterSeconds });
}

/** 504 Timeout, as kube's NewTimeoutError. */
export function timeout(message: string, retryAfterSeconds = 0): StatusError {
  // Go drops a zero retryAfterSeconds (omitempty): the details stay, empty.
  return failure(504, 'Timeout', `Timeout: ${message}`, retryAfterSeconds ? { retryAfterSeconds } : {});
}

/** 504 for a request past its deadline (kube's timeout filter, NewTimeoutError with no retry). */
export function requestTimedOut(): StatusError {
  return timeout('request did not complete within the allotted timeout');
}

/** 504 with the ResourceVersionTooLarge cause (a read at a revision the store has not reached). */
export function resourceVersionTooLarge(requested: number | bigint, current: number): StatusError {
  return failure(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}

export function serviceUnavailable(message: string): StatusError {
  return failure(503, 'ServiceUnavailable', message);
}

/** 500; the message never carries a stack trace. */
export function internal(message: string): StatusError {
  return failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}
