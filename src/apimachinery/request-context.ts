// Per-request facts passed explicitly from http/ down to the registry (no ambient state).

/** The authenticated (or impersonated) identity. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** What a request is about, parsed from its method and path (kube's RequestInfo). */
export interface RequestInfo {
  isResourceRequest: boolean;
  /** Path of the request, for non-resource requests and audit. */
  path: string;
  /** get, list, watch, create, update, patch, delete, deletecollection (or the lower-cased HTTP method for non-resource requests). */
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  parts: string[];
}

/** A minimal structured logger (pino's shape), so lower layers do not depend on a logging library. */
export interface Logger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

export interface RequestContext {
  requestId: string;
  user: UserInfo;
  /** Set when the request impersonates: the identity that authenticated. */
  impersonatedBy?: UserInfo;
  requestInfo: RequestInfo;
  signal: AbortSignal;
  /**
   * Whether the request was abandoned (timed out, or its client went away): the same as
   * `signal.aborted`, without making the signal (an AbortController per request is measurable on
   * the hot path). Absent: ask `signal`.
   */
  abandoned?: () => boolean;
  /**
   * When the request times out (performance.now() ms), if it can: past it the request is
   * abandoned even if the timeout's timer has not had its turn yet (the event loop held by the
   * request's own work).
   */
  deadline?: number;
  logger: Logger;
  /** Warnings to return as `Warning: 299 - "..."` headers; append, never replace. */
  warnings: string[];
  dryRun: boolean;
  /** Adds an annotation to the request's audit event (admission's audit annotations); absent without one. */
  annotate?(key: string, value: string): void;
}

/** A RequestInfo with nothing resolved yet (non-resource until proven otherwise). */
export function emptyRequestInfo(path = '', verb = ''): RequestInfo {
  return { isResourceRequest: false, path, verb, apiPrefix: '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '', parts: [] };
}

/** A context for in-process callers (controllers, tests): acts as the given user. */
export function internalContext(user: UserInfo, logger: Logger, info: Partial<RequestInfo> = {}): RequestContext {
  return {
    requestId: 'internal',
    user,
    requestInfo: { ...emptyRequestInfo(), isResourceRequest: true, apiPrefix: 'apis', ...info },
    signal: new AbortController().signal,
    logger,
    warnings: [],
    dryRun: false,
  };
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
};
