// Field-level validation errors, rendered exactly as apimachinery's field.Error does,
// because kubectl prints `cause.message` verbatim and clients compare the text.

import { goQuote } from './go-quote.js';

/** The `reason` a field error carries in Status details.causes. */
export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Marker for "do not print the value" (Go's field.OmitValueType). */
export const OMIT_VALUE: unique symbol = Symbol('omit value');

export interface FieldError {
  readonly type: FieldErrorType;
  /** Dotted / indexed path, e.g. `spec.cidrs[0]` or `metadata.labels`. */
  readonly field: string;
  readonly badValue: unknown;
  readonly detail: string;
}

/** Builds field paths the way field.Path does: child → `.name`, index → `[i]`, key → `[key]`. */
export class FieldPath {
  private constructor(private readonly text: string) {}
  static root(name: string): FieldPath {
    return new FieldPath(name);
  }
  child(name: string, ...more: string[]): FieldPath {
    let p: FieldPath = new FieldPath(this.text === '' ? name : `${this.text}.${name}`);
    for (const m of more) p = p.child(m);
    return p;
  }
  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`);
  }
  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`);
  }
  toString(): string {
    return this.text;
  }
}

type PathLike = FieldPath | string;
const p = (path: PathLike): string => path.toString();

export const fieldErrors = {
  required: (path: PathLike, detail = ''): FieldError => ({ type: 'FieldValueRequired', field: p(path), badValue: '', detail }),
  invalid: (path: PathLike, value: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field: p(path), badValue: value, detail }),
  duplicate: (path: PathLike, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field: p(path), badValue: value, detail: '' }),
  notFound: (path: PathLike, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field: p(path), badValue: value, detail: '' }),
  forbidden: (path: PathLike, detail: string): FieldError => ({ type: 'FieldValueForbidden', field: p(path), badValue: '', detail }),
  internal: (path: PathLike, detail: string): FieldError => ({ type: 'InternalError', field: p(path), badValue: null, detail }),
  typeInvalid: (path: PathLike, value: unknown, detail: string): FieldError => ({ type: 'FieldValueTypeInvalid', field: p(path), badValue: value, detail }),
  /** `supported` values are listed quoted and sorted, as Go does. */
  /**
   * Most of kube's callers pass a sorted set (`sets.List()`); `inGivenOrder` is for those that
   * pass a literal list, whose order the message keeps.
   */
  notSupported: (path: PathLike, value: unknown, supported: readonly string[], inGivenOrder = false): FieldError => ({
    type: 'FieldValueNotSupported',
    field: p(path),
    badValue: value,
    detail: supported.length ? `supported values: ${(inGivenOrder ? [...supported] : [...supported].sort()).map((s) => goQuote(s)).join(', ')}` : '',
  }),
  /** Go's TooLong: "must have at most N bytes" (the value is never shown). */
  tooLong: (path: PathLike, value: unknown, max: number): FieldError => ({
    type: 'FieldValueTooLong',
    field: p(path),
    badValue: value,
    detail: max >= 0 ? `must have at most ${max} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long',
  }),
  tooMany: (path: PathLike, actual: number, max: number): FieldError => ({
    type: 'FieldValueTooMany',
    field: p(path),
    badValue: actual,
    detail: max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items',
  }),
};


/**
 * Longest rendering of one bad value, in characters. Upstream prints values whole; we bound them
 * so that an error answer stays small whatever the input (a cause repeats its value in the
 * message too): longer renderings keep their start and say how much was left out.
 */
export const MAX_RENDERED_VALUE_CHARS = 1024;

function renderValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  const text = typeof value === 'string' ? goQuote(value) : (JSON.stringify(value) ?? 'null');
  if (text.length <= MAX_RENDERED_VALUE_CHARS) return text;
  return `${text.slice(0, MAX_RENDERED_VALUE_CHARS)}...(${text.length - MAX_RENDERED_VALUE_CHARS} more characters)`;
}

/** The message of one cause (Go's ErrorBody): type text, the value where Go shows it, then the detail. */
export function fieldErrorBody(e: FieldError): string {
  const omitValue =
    e.type === 'FieldValueRequired' ||
    e.type === 'FieldValueForbidden' ||
    e.type === 'FieldValueTooLong' ||
    e.type === 'InternalError' ||
    e.badValue === OMIT_VALUE;
  let s = omitValue ? TYPE_TEXT[e.type] : `${TYPE_TEXT[e.type]}: ${renderValue(e.badValue)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** Full text of one error: `<field>: <body>` (Go's Error()). */
export function fieldErrorText(e: FieldError): string {
  return e.field ? `${e.field}: ${fieldErrorBody(e)}` : fieldErrorBody(e);
}

/**
 * Most field errors one answer reports (causes, and errors in the message). Upstream reports
 * every error; we bound the list so that an answer stays small whatever the input (each error
 * costs at most a few kilobytes, see MAX_RENDERED_VALUE_CHARS): the message says how many more
 * there were.
 */
export const MAX_REPORTED_FIELD_ERRORS = 100;

/**
 * Go's ErrorList.ToAggregate().Error(): one message, or `[a, b]` for several, duplicates removed;
 * past MAX_REPORTED_FIELD_ERRORS, `and N more errors` closes the list.
 */
export function aggregateFieldErrors(errors: readonly FieldError[]): string {
  const seen = new Set<string>();
  const msgs: string[] = [];
  let omitted = 0;
  for (const e of errors) {
    if (msgs.length >= MAX_REPORTED_FIELD_ERRORS) {
      omitted++;
      continue;
    }
    const t = fieldErrorText(e);
    if (!seen.has(t)) {
      seen.add(t);
      msgs.push(t);
    }
  }
  if (omitted) msgs.push(`and ${omitted} more ${omitted === 1 ? 'error' : 'errors'}`);
  return msgs.length === 1 ? msgs[0]! : `[${msgs.join(', ')}]`;
}
