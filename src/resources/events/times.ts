// Event times as kube's decoding treats them: each parsed as its Go type parses it (Time: RFC 3339;
// MicroTime: RFC 3339 with six fractional digits) and written back as that type writes it (UTC).
// A text that does not parse is the 400 kube's decoder answers.

import { badRequest } from '../../apimachinery/status-error.js';
import { formatMicroTime, formatTime, GoTimeError, parseGoTime } from './go-time.js';

/** A member that holds a time, in a shape (`series.lastObservedTime` is nested). */
export interface TimeField {
  path: readonly string[];
  micro: boolean;
}

export const CORE_TIME_FIELDS: readonly TimeField[] = [
  { path: ['firstTimestamp'], micro: false },
  { path: ['lastTimestamp'], micro: false },
  { path: ['eventTime'], micro: true },
  { path: ['series', 'lastObservedTime'], micro: true },
];

export const EVENTS_V1_TIME_FIELDS: readonly TimeField[] = [
  { path: ['eventTime'], micro: true },
  { path: ['series', 'lastObservedTime'], micro: true },
  { path: ['deprecatedFirstTimestamp'], micro: false },
  { path: ['deprecatedLastTimestamp'], micro: false },
];

/** A time text in its type's written form; a text Go cannot parse is kube's decoding 400. */
export function normalizeTime(text: string, micro: boolean, version: string): string {
  try {
    const t = parseGoTime(text, micro);
    return micro ? formatMicroTime(t) : formatTime(t);
  } catch (err) {
    if (err instanceof GoTimeError) throw badRequest(`Event in version ${JSON.stringify(version)} cannot be handled as a Event: ${err.message}`);
    throw err;
  }
}

/** Rewrites every time member of `obj` in place (strings only; other JSON types were refused by the schema). */
export function normalizeTimes(obj: Record<string, unknown>, fields: readonly TimeField[], version: string): void {
  for (const { path, micro } of fields) {
    let holder: Record<string, unknown> | undefined = obj;
    for (const key of path.slice(0, -1)) {
      const next: unknown = holder?.[key];
      holder = typeof next === 'object' && next !== null && !Array.isArray(next) ? (next as Record<string, unknown>) : undefined;
    }
    const key = path[path.length - 1]!;
    const value = holder?.[key];
    if (holder && typeof value === 'string') holder[key] = normalizeTime(value, micro, version);
  }
}
