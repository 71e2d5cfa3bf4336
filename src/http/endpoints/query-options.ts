// Query parameters shared by the verbs (dryRun, fieldManager, fieldValidation, pretty, list
// options, delete options), validated as kube-apiserver validates its *Options types.

import { decodeBody } from '../../apimachinery/decode.js';
import { FieldPath, fieldErrors, type FieldError } from '../../apimachinery/field-error.js';
import type { DeleteOptions } from '../../apimachinery/object-meta.js';
import { badRequest, invalid } from '../../apimachinery/status-error.js';
import { validateFieldManager } from '../../apimachinery/validation/object-meta-validation.js';
import { parseIncludeObject, type IncludeObject } from '../../apimachinery/table.js';
import type { ListQuery } from '../../registry/rest-storage.js';
import { queryBool, queryInt64 } from './query-values.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteQuery {
  dryRun: boolean;
  fieldManager: string;
  fieldValidation: FieldValidation;
}

const metaOptionsInvalid = (kind: string, errs: FieldError[]) => invalid({ group: 'meta.k8s.io', kind }, '', errs);

function dryRunErrors(values: string[]): FieldError[] {
  return values.some((v) => v !== 'All') ? [fieldErrors.notSupported(FieldPath.root('dryRun'), values, ['All'])] : [];
}

/** `optionsKind` names the options type in errors: CreateOptions, UpdateOptions or PatchOptions. */
export function writeQuery(query: URLSearchParams, userAgent: string | undefined, optionsKind: string): WriteQuery {
  const errs: FieldError[] = [];
  const dryRun = query.getAll('dryRun');
  errs.push(...dryRunErrors(dryRun));
  const fieldValidation = query.get('fieldValidation') ?? '';
  if (!['', 'Strict', 'Warn', 'Ignore'].includes(fieldValidation)) {
    errs.push(fieldErrors.notSupported(FieldPath.root('fieldValidation'), fieldValidation, ['', 'Ignore', 'Strict', 'Warn']));
  }
  const explicitManager = query.get('fieldManager');
  const fieldManager = explicitManager ?? defaultFieldManager(userAgent);
  if (explicitManager !== null) {
    errs.push(...validateFieldManager(explicitManager, FieldPath.root('fieldManager')));
    if (/[^\x20-\x7e]/.test(explicitManager)) errs.push(fieldErrors.invalid(FieldPath.root('fieldManager'), explicitManager, 'must only contain printable characters'));
  }
  if (errs.length) throw metaOptionsInvalid(optionsKind, errs);
  return { dryRun: dryRun.length > 0, fieldManager, fieldValidation: (fieldValidation || 'Warn') as FieldValidation };
}

/** kube's default manager: the user agent up to its first '/', at most 128 characters. */
export function defaultFieldManager(userAgent: string | undefined): string {
  return (userAgent ?? '').split('/')[0]!.slice(0, 128);
}

/**
 * TableOptions' includeObject, checked as kube checks it when it converts an answer to a Table
 * (ValidateTableOptions): anything but Metadata, Object, None or empty is a 400.
 */
export function tableIncludeObject(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject');
  if (v !== null && v !== '' && v !== 'Metadata' && v !== 'Object' && v !== 'None') {
    throw badRequest(`Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`);
  }
  return parseIncludeObject(v ?? undefined);
}

export function listQuery(query: URLSearchParams): ListQuery {
  const out: ListQuery = {};
  const limit = queryInt64(query, 'limit');
  if (limit !== undefined) out.limit = limit;
  // Read by watches only, but parsed on every list as kube's ListOptions decoding does.
  queryInt64(query, 'timeoutSeconds');
  const sendInitialEvents = queryBool(query, 'sendInitialEvents');
  if (sendInitialEvents !== undefined) out.sendInitialEvents = sendInitialEvents;
  for (const k of ['labelSelector', 'fieldSelector', 'continue', 'resourceVersion', 'resourceVersionMatch'] as const) {
    const v = query.get(k);
    if (v !== null) out[k] = v;
  }
  return out;
}

const PROPAGATION = ['Foreground', 'Background', 'Orphan'];

/** DeleteOptions from a JSON/YAML body when there is one, else from the query. */
export async function deleteOptions(body: Buffer | undefined, contentType: string | undefined, query: URLSearchParams): Promise<DeleteOptions> {
  let opts: DeleteOptions = {};
  if (body && body.length > 0 && body.toString('utf8').trim() !== '') {
    const format = (contentType ?? '').includes('yaml') ? 'yaml' : 'json';
    const value = (await decodeBody(body, format)).value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('DeleteOptions must be a JSON object');
    opts = value as DeleteOptions;
  } else {
    const grace = queryInt64(query, 'gracePeriodSeconds');
    if (grace !== undefined) opts.gracePeriodSeconds = grace;
    const policy = query.get('propagationPolicy');
    if (policy !== null) opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
    const orphan = queryBool(query, 'orphanDependents');
    if (orphan !== undefined) opts.orphanDependents = orphan;
    const dryRun = query.getAll('dryRun');
    if (dryRun.length) opts.dryRun = dryRun;
  }
  const errs: FieldError[] = [...dryRunErrors(opts.dryRun ?? [])];
  if (opts.propagationPolicy !== undefined && !PROPAGATION.includes(opts.propagationPolicy)) {
    errs.push(fieldErrors.notSupported(FieldPath.root('propagationPolicy'), opts.propagationPolicy, PROPAGATION));
  }
  if (opts.propagationPolicy !== undefined && opts.orphanDependents !== undefined) {
    errs.push(fieldErrors.invalid(FieldPath.root('propagationPolicy'), opts.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (opts.gracePeriodSeconds !== undefined && !Number.isInteger(opts.gracePeriodSeconds)) {
    throw badRequest(`json: cannot unmarshal number ${opts.gracePeriodSeconds} into Go struct field DeleteOptions.gracePeriodSeconds of type int64`);
  }
  if (errs.length) throw metaOptionsInvalid('DeleteOptions', errs);
  return opts;
}
