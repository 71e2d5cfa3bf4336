// The hook the metrics filter records through: a small interface, so the request path does not
// depend on a metrics library. The server is given an implementation (e.g. prom-client's
// apiserver_request_total, apiserver_request_duration_seconds, apiserver_response_sizes,
// apiserver_current_inflight_requests, apiserver_rejected_requests_total); the default does
// nothing. Every label value is from a bounded set: never a name, a path or user input.

/** kube's request_kind label of the in-flight gauges. */
export type RequestKind = 'readOnly' | 'mutating';

export interface ObservedRequest {
  /** kube's metric verb: GET LIST WATCH POST PUT PATCH APPLY DELETE DELETECOLLECTION, or the method of a non-resource request. */
  verb: string;
  /** Empty for non-resource requests and for resources this server does not serve. */
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** kube's scope label: resource, namespace, cluster, or '' for non-resource requests. */
  scope: '' | 'resource' | 'namespace' | 'cluster';
  component: 'apiserver';
  /** The HTTP status code answered. */
  code: number;
  durationSeconds: number;
  responseBytes: number;
}

export interface RequestObserver {
  /** One finished request (also a watch, when it ends). */
  observe(info: ObservedRequest): void;
  /** A request took (+1) or gave back (-1) an in-flight slot. */
  inflight(kind: RequestKind, delta: 1 | -1): void;
  /** A request was refused with 429 because the in-flight limit of its kind was reached. */
  rejected(kind: RequestKind): void;
}

export const noopRequestObserver: RequestObserver = {
  observe() {},
  inflight() {},
  rejected() {},
};
