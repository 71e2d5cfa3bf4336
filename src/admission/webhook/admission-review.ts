// AdmissionReview as kube sends it to a webhook and reads the answer (webhook/request/
// admissionreview.go and client-go's decoding): the request in admission.k8s.io/v1 or v1beta1
// (the first the webhook lists), and the response checked step by step with kube's messages,
// from the HTTP status to the response's uid, kind and patch fields.

import { randomUUID } from 'node:crypto';
import type { AdmissionAttributes } from '../../apimachinery/admission.js';
import { goQuote } from '../../apimachinery/go-quote.js';
import type { Status } from '../../apimachinery/status-error.js';
import { goJsonSyntaxError } from './go-json-syntax.js';
import type { WebhookHttpResponse } from './webhook-client.js';

export type ReviewVersion = 'v1' | 'v1beta1';
const ADMISSION_GROUP = 'admission.k8s.io';

/** The review version kube uses: the first of the webhook's admissionReviewVersions it knows. */
export function reviewVersion(versions: readonly string[] | undefined): ReviewVersion | undefined {
  return (versions ?? []).find((v): v is ReviewVersion => v === 'v1' || v === 'v1beta1');
}

/** The request body and its uid. */
export function admissionReview(a: AdmissionAttributes, version: ReviewVersion): { uid: string; body: Buffer } {
  const uid = randomUUID();
  const gvk = { group: a.group, version: a.version, kind: a.kind };
  const gvr = { group: a.group, version: a.version, resource: a.resource };
  const userInfo: Record<string, unknown> = { username: a.user.username };
  if (a.user.uid) userInfo.uid = a.user.uid;
  if (a.user.groups.length) userInfo.groups = a.user.groups;
  if (a.user.extra && Object.keys(a.user.extra).length) userInfo.extra = a.user.extra;
  const request: Record<string, unknown> = { uid, kind: gvk, resource: gvr };
  if (a.subresource) request.subResource = a.subresource;
  request.requestKind = gvk;
  request.requestResource = gvr;
  if (a.subresource) request.requestSubResource = a.subresource;
  if (a.name) request.name = a.name;
  if (a.namespace) request.namespace = a.namespace;
  Object.assign(request, { operation: a.operation, userInfo, object: a.object ?? null, oldObject: a.oldObject ?? null, dryRun: a.dryRun, options: a.options ?? null });
  return { uid, body: Buffer.from(JSON.stringify({ kind: 'AdmissionReview', apiVersion: `${ADMISSION_GROUP}/${version}`, request })) };
}

/** What a webhook answered, once verified. */
export interface AdmissionResponse {
  readonly allowed: boolean;
  readonly result?: Partial<Status>;
  /** The decoded JSON patch bytes (mutating only). */
  readonly patch?: Buffer;
  readonly patchType?: string;
  readonly auditAnnotations: Readonly<Record<string, string>>;
  readonly warnings: readonly string[];
}

/** Why a call failed (kube's ErrCallingWebhook reason) and the status code its metrics record. */
export interface CallError {
  readonly reason: string;
  readonly code: number;
}

const jsonKind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? `number` : 'string');

/** client-go's message for an HTTP error without a Status body (NewGenericServerResponse). */
function genericServerResponse(code: number, serverMessage: string): string {
  switch (code) {
    case 409:
      return 'the server reported a conflict';
    case 404:
      return 'the server could not find the requested resource';
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'the server has asked for the client to provide credentials';
    case 403:
    case 415:
      return serverMessage;
    case 406:
      return serverMessage && serverMessage !== 'unknown' ? serverMessage : 'the server was unable to respond with a content type that the client supports';
    case 405:
      return 'the server does not allow this method on the requested resource';
    case 422:
      return 'the server rejected our request due to an error in our request';
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
    default:
      return code >= 500 ? `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding` : `the server responded with the status code ${code} but did not return more information`;
  }
}

const isTextType = (ct: string): boolean => ct === '' || ct.split(';')[0]!.trim().toLowerCase().startsWith('text/');

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

const FIND_KIND_TYPE = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
/** The scheme the webhook client decodes with, named by where kube creates it. */
const HOOK_SCHEME = 'k8s.io/apiserver/pkg/util/webhook/client.go:74';

const typeError = (value: unknown, field: string, goType: string): string => `json: cannot unmarshal ${jsonKind(value)}${typeof value === 'number' && goType.startsWith('int') ? ` ${value}` : ''} into Go struct field ${field} of type ${goType}`;

/** Go's json decoding of the response fields kube reads; the first type error, if any. */
function responseTypeError(r: Record<string, unknown>): string | undefined {
  const field = (name: string) => `AdmissionResponse.response.${name}`;
  const checks: [string, string, (v: unknown) => boolean][] = [
    ['uid', 'types.UID', (v) => typeof v === 'string'],
    ['allowed', 'bool', (v) => typeof v === 'boolean'],
    ['patch', '[]uint8', (v) => typeof v === 'string'],
    ['patchType', 'v1.PatchType', (v) => typeof v === 'string'],
    ['warnings', '[]string', (v) => Array.isArray(v)],
    ['auditAnnotations', 'map[string]string', (v) => typeof v === 'object' && !Array.isArray(v)],
    ['status', 'v1.Status', (v) => typeof v === 'object' && !Array.isArray(v)],
  ];
  for (const [name, goType, ok] of checks) {
    const v = r[name];
    if (v !== undefined && v !== null && !ok(v)) return typeError(v, field(name), goType);
  }
  if (Array.isArray(r.warnings)) for (const w of r.warnings) if (typeof w !== 'string' && w !== null) return typeError(w, field('warnings'), 'string');
  if (r.auditAnnotations && typeof r.auditAnnotations === 'object') for (const v of Object.values(r.auditAnnotations)) if (typeof v !== 'string' && v !== null) return typeError(v, field('auditAnnotations'), 'string');
  const s = r.status as Record<string, unknown> | null | undefined;
  if (s && typeof s === 'object') {
    for (const k of ['status', 'message', 'reason']) if (s[k] !== undefined && s[k] !== null && typeof s[k] !== 'string') return typeError(s[k], `Status.response.status.${k}`, k === 'reason' ? 'v1.StatusReason' : 'string');
    if (s.code !== undefined && s.code !== null && !(typeof s.code === 'number' && Number.isInteger(s.code) && Math.abs(s.code) < 2 ** 31)) return typeError(s.code, 'Status.response.status.code', 'int32');
  }
  return undefined;
}

/** Go's strict base64 decoding of a []byte field. */
function decodeBase64(s: string): Buffer | string {
  const bad = /[^A-Za-z0-9+/=]/.exec(s);
  if (bad) return `illegal base64 data at input byte ${bad.index}`;
  const pad = s.indexOf('=');
  if (s.length % 4 !== 0 || (pad >= 0 && (pad < s.length - 2 || /[^=]/.test(s.slice(pad))))) return `illegal base64 data at input byte ${pad >= 0 ? pad : s.length - (s.length % 4)}`;
  return Buffer.from(s, 'base64');
}

/**
 * The verified response, or the call error kube reports for it: `failed to call webhook: …`
 * (HTTP or decoding) or `received invalid webhook response: …` (the review itself).
 */
export function readResponse(http: WebhookHttpResponse, version: ReviewVersion, uid: string, mutating: boolean): AdmissionResponse | CallError {
  const failedCall = (msg: string, code = 503): CallError => ({ reason: `failed to call webhook: ${msg}`, code });
  const invalid = (msg: string): CallError => ({ reason: `received invalid webhook response: ${msg}`, code: 503 });
  const contentType = http.contentType || 'application/json';
  if (http.statusCode < 200 || http.statusCode > 206) {
    const parsed = parseJson(http.body) as Record<string, unknown> | undefined;
    if (parsed && typeof parsed === 'object' && parsed.kind === 'Status' && parsed.status === 'Failure') {
      return failedCall(typeof parsed.message === 'string' ? parsed.message : '', typeof parsed.code === 'number' ? parsed.code : http.statusCode);
    }
    const text = isTextType(http.contentType) ? http.body.subarray(0, 2048).toString('utf8').trim() : 'unknown';
    return failedCall(genericServerResponse(http.statusCode, text), http.statusCode);
  }
  if (http.body.length === 0) return failedCall(`0-length response with status code: ${http.statusCode} and content type: ${contentType}`);
  const syntax = goJsonSyntaxError(http.body);
  if (syntax !== undefined) return failedCall(`couldn't get version/kind; json parse error: ${syntax}`);
  const doc = JSON.parse(http.body.toString('utf8')) as unknown;
  if (doc !== null && (typeof doc !== 'object' || Array.isArray(doc))) return failedCall(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(doc)} into Go value of type ${FIND_KIND_TYPE}`);
  const review = (doc ?? {}) as Record<string, unknown>;
  for (const k of ['apiVersion', 'kind']) {
    if (review[k] !== undefined && review[k] !== null && typeof review[k] !== 'string') return failedCall(`couldn't get version/kind; json parse error: ${typeError(review[k], `.${k}`, 'string')}`);
  }
  const apiVersion = (review.apiVersion as string | undefined) ?? '';
  const kind = (review.kind as string | undefined) ?? '';
  // The kind decoded: what the body names, completed from the requested type (client-go's defaults).
  const [g, v] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  const dGroup = !g && !v ? ADMISSION_GROUP : g!;
  const dVersion = !g && !v ? version : v || (dGroup === ADMISSION_GROUP ? version : '');
  const dKind = kind || 'AdmissionReview';
  if (!(dGroup === ADMISSION_GROUP && dVersion === version && dKind === 'AdmissionReview')) {
    const known = (dGroup === ADMISSION_GROUP && (dVersion === 'v1' || dVersion === 'v1beta1') && dKind === 'AdmissionReview') || (dGroup === '' && dVersion === 'v1' && dKind === 'Status');
    const gv = dGroup ? `${dGroup}/${dVersion}` : dVersion;
    if (!known) return failedCall(`no kind ${goQuote(dKind)} is registered for version ${goQuote(gv)} in scheme ${goQuote(HOOK_SCHEME)}`);
    return failedCall(`converting (${dVersion}.${dKind}) to (${version}.AdmissionReview): unknown conversion`);
  }
  const response = review.response;
  if (response !== undefined && response !== null && (typeof response !== 'object' || Array.isArray(response))) return failedCall(typeError(response, 'AdmissionReview.response', `${version}.AdmissionResponse`));
  const r = response as Record<string, unknown> | null | undefined;
  if (r) {
    const te = responseTypeError(r);
    if (te) return failedCall(te);
  }
  let patch: Buffer | undefined;
  if (r && typeof r.patch === 'string') {
    const decoded = decodeBase64(r.patch);
    if (typeof decoded === 'string') return failedCall(decoded);
    patch = decoded;
  }
  if (!r) return invalid('webhook response was absent');
  const patchType = typeof r.patchType === 'string' ? r.patchType : undefined;
  const base = {
    allowed: r.allowed === true,
    result: (r.status ?? undefined) as Partial<Status> | undefined,
    auditAnnotations: Object.fromEntries(Object.entries((r.auditAnnotations ?? {}) as Record<string, string | null>).map(([k2, v2]) => [k2, v2 ?? ''])),
    warnings: ((r.warnings ?? []) as (string | null)[]).map((w) => w ?? ''),
  };
  if (version === 'v1beta1') {
    return mutating && patch?.length ? { ...base, patch, patchType: 'JSONPatch' } : base;
  }
  const gotUid = typeof r.uid === 'string' ? r.uid : '';
  if (gotUid !== uid) return invalid(`expected response.uid=${goQuote(uid)}, got ${goQuote(gotUid)}`);
  if (apiVersion !== `${ADMISSION_GROUP}/v1` || kind !== 'AdmissionReview') {
    const [gg, vv] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    return invalid(`expected webhook response of ${ADMISSION_GROUP}/v1, Kind=AdmissionReview, got ${gg}/${vv}, Kind=${kind}`);
  }
  if (mutating) {
    if (patch?.length && patchType === undefined) return invalid('webhook returned response.patch but not response.patchType');
    if (!patch?.length && patchType !== undefined) return invalid('webhook returned response.patchType but not response.patch');
    if (patchType !== undefined && patchType === '') return invalid('webhook returned invalid response.patchType of ""');
    return { ...base, patch, patchType };
  }
  if (patch?.length) return invalid('validating webhook may not return response.patch');
  if (patchType !== undefined) return invalid('validating webhook may not return response.patchType');
  return base;
}

export const isCallError = (r: AdmissionResponse | CallError): r is CallError => 'reason' in r;

/** kube's ToStatusErr: a rejection as the Status the client gets. */
export function rejection(webhookName: string, result: Partial<Status> | undefined): Status {
  const r = result ?? {};
  const deniedBy = `admission webhook ${goQuote(webhookName)} denied the request`;
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400;
  const message = r.message ? `${deniedBy}: ${r.message}` : r.reason ? `${deniedBy}: ${r.reason}` : `${deniedBy} without explanation`;
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code };
  if (r.reason) status.reason = r.reason;
  if (r.details && typeof r.details === 'object') status.details = r.details;
  return status;
}
