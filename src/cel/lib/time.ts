// Timestamps and durations: RFC 3339 and Go duration text, arithmetic with cel-go's range
// checks, and the calendar accessors (getFullYear, getHours, ...) in UTC or a named time zone.

import { fn, method } from '../functions.js';
import { T } from '../types.js';
import { CelError, Duration, INT64_MAX, INT64_MIN, Timestamp, type CelResult } from '../values.js';

const NS_PER_S = 1_000_000_000n;
// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999999Z, cel-go's timestamp range.
const MIN_TS = -62135596800n * NS_PER_S;
const MAX_TS = 253402300799n * NS_PER_S + 999_999_999n;

export function timestampOrError(nanos: bigint): Timestamp | CelError {
  return nanos < MIN_TS || nanos > MAX_TS ? new CelError('timestamp out of range') : new Timestamp(nanos);
}

function durationOrError(nanos: bigint): Duration | CelError {
  return nanos < INT64_MIN || nanos > INT64_MAX ? new CelError('integer overflow') : new Duration(nanos);
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

export function parseTimestamp(s: string): Timestamp | CelError {
  const m = RFC3339.exec(s);
  const bad = new CelError(`string to timestamp conversion error: parsing time ${JSON.stringify(s)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(s)} as "2006-01-02T15:04:05Z07:00"`);
  if (!m) return bad;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59) return bad;
  let seconds = BigInt(daysFromCivil(y, mo, d)) * 86400n + BigInt(h * 3600 + mi * 60 + sec);
  const zone = m[8]!;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1n : 1n;
    seconds -= sign * BigInt(Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  }
  return timestampOrError(seconds * NS_PER_S + BigInt((m[7] ?? '').padEnd(9, '0')));
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (y: number, m: number): number => (m === 2 && isLeap(y) ? 29 : DAYS_IN_MONTH[m - 1]!);

/** Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The date of a day number (Hinnant's civil_from_days). */
function civilFromDays(z: number): { y: number; m: number; d: number } {
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d };
}

/** RFC 3339 with nanoseconds, trailing zeros dropped, in UTC (Go's time.RFC3339Nano). */
export function formatTimestamp(t: Timestamp): string {
  const secs = floorDiv(t.nanos, NS_PER_S);
  const nanos = Number(t.nanos - secs * NS_PER_S);
  const days = Number(floorDiv(secs, 86400n));
  const rem = Number(secs - BigInt(days) * 86400n);
  const { y, m, d } = civilFromDays(days);
  const pad = (n: number): string => n.toString().padStart(2, '0');
  const base = `${y.toString().padStart(4, '0')}-${pad(m)}-${pad(d)}T${pad(Math.floor(rem / 3600))}:${pad(Math.floor(rem / 60) % 60)}:${pad(rem % 60)}`;
  const frac = nanos ? `.${nanos.toString().padStart(9, '0').replace(/0+$/, '')}` : '';
  return `${base}${frac}Z`;
}

const floorDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
};

const UNITS: Record<string, bigint> = { ns: 1n, us: 1000n, µs: 1000n, μs: 1000n, ms: 1_000_000n, s: NS_PER_S, m: 60n * NS_PER_S, h: 3600n * NS_PER_S };

/** Go's time.ParseDuration. */
export function parseDuration(s: string): Duration | CelError {
  const bad = new CelError(`string to duration conversion error: time: invalid duration ${JSON.stringify(s)}`);
  let rest = s;
  let sign = 1n;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1n;
    rest = rest.slice(1);
  }
  if (rest === '0') return new Duration(0n);
  if (rest === '') return bad;
  let total = 0n;
  const part = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (rest.length) {
    const m = part.exec(rest);
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) return bad;
    const unit = UNITS[m[3]!]!;
    let v = BigInt(m[1] || '0') * unit;
    if (m[2]) v += (BigInt(m[2]) * unit) / 10n ** BigInt(m[2].length);
    total += v;
    rest = rest.slice(m[0].length);
  }
  return durationOrError(sign * total);
}

/** cel-go's string(duration): seconds with as many decimals as needed and an `s`. */
export function formatDuration(d: Duration): string {
  const neg = d.nanos < 0n;
  const abs = neg ? -d.nanos : d.nanos;
  const secs = abs / NS_PER_S;
  const frac = (abs % NS_PER_S).toString().padStart(9, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${secs}${frac ? `.${frac}` : ''}s`;
}

interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millis: number;
  weekday: number;
  dayOfYear: number;
}

const offsetPattern = /^([+-])?(\d{1,2}):(\d{2})$/;

/** The wall clock of `t` in `tz` (UTC, an IANA name, or ±HH:MM), or an error for an unknown zone. */
function civil(t: Timestamp, tz?: string): Civil | CelError {
  const ms = Number(floorDiv(t.nanos, 1_000_000n));
  let shifted = ms;
  if (tz !== undefined && tz !== '' && tz !== 'UTC') {
    const m = offsetPattern.exec(tz);
    if (m) {
      const off = (Number(m[2]) * 60 + Number(m[3])) * 60_000 * (m[1] === '-' ? -1 : 1);
      shifted = ms + off;
    } else {
      const off = zoneOffsetMs(tz, ms);
      if (off === undefined) return new CelError(`unknown time zone ${tz}`);
      shifted = ms + off;
    }
  }
  const days = Math.floor(shifted / 86_400_000);
  const msOfDay = shifted - days * 86_400_000;
  const { y, m, d } = civilFromDays(days);
  const nsInMs = Number(((t.nanos % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n) / 1_000_000;
  return {
    year: y,
    month: m - 1,
    day: d,
    hour: Math.floor(msOfDay / 3_600_000),
    minute: Math.floor(msOfDay / 60_000) % 60,
    second: Math.floor(msOfDay / 1000) % 60,
    millis: Math.floor(nsInMs),
    weekday: (((days + 4) % 7) + 7) % 7,
    dayOfYear: days - daysFromCivil(y, 1, 1),
  };
}

const zoneFormatters = new Map<string, Intl.DateTimeFormat | undefined>();

function zoneOffsetMs(tz: string, ms: number): number | undefined {
  let f = zoneFormatters.get(tz);
  if (!zoneFormatters.has(tz)) {
    try {
      f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    } catch {
      f = undefined;
    }
    if (zoneFormatters.size < 256) zoneFormatters.set(tz, f);
  }
  if (!f) return undefined;
  const parts = Object.fromEntries(f.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return wall - (ms - (((ms % 1000) + 1000) % 1000));
}

const accessor = (name: string, pick: (c: Civil) => number): ReturnType<typeof method>[] => [
  method(`timestamp_to_${name}`, name, [T.timestamp], T.int, (t: Timestamp) => civilInt(civil(t), pick)),
  method(`timestamp_to_${name}_with_tz`, name, [T.timestamp, T.string], T.int, (t: Timestamp, tz: string) => civilInt(civil(t, tz), pick)),
];

const civilInt = (c: Civil | CelError, pick: (c: Civil) => number): CelResult => (c instanceof CelError ? c : BigInt(pick(c)));

const durationPart = (id: string, name: string, unit: bigint) => method(id, name, [T.duration], T.int, (d: Duration) => d.nanos / unit);

export const timeOverloads = [
  fn('string_to_timestamp', 'timestamp', [T.string], T.timestamp, parseTimestamp),
  fn('int64_to_timestamp', 'timestamp', [T.int], T.timestamp, (s: bigint) => timestampOrError(s * NS_PER_S)),
  fn('timestamp_to_timestamp', 'timestamp', [T.timestamp], T.timestamp, (t: Timestamp) => t),
  fn('string_to_duration', 'duration', [T.string], T.duration, parseDuration),
  fn('duration_to_duration', 'duration', [T.duration], T.duration, (d: Duration) => d),
  fn('timestamp_to_string', 'string', [T.timestamp], T.string, formatTimestamp),
  fn('duration_to_string', 'string', [T.duration], T.string, formatDuration),
  fn('timestamp_to_int64', 'int', [T.timestamp], T.int, (t: Timestamp) => floorDiv(t.nanos, NS_PER_S)),
  fn('add_timestamp_duration', '_+_', [T.timestamp, T.duration], T.timestamp, (t: Timestamp, d: Duration) => timestampOrError(t.nanos + d.nanos)),
  fn('add_duration_timestamp', '_+_', [T.duration, T.timestamp], T.timestamp, (d: Duration, t: Timestamp) => timestampOrError(t.nanos + d.nanos)),
  fn('add_duration_duration', '_+_', [T.duration, T.duration], T.duration, (a: Duration, b: Duration) => durationOrError(a.nanos + b.nanos)),
  fn('subtract_timestamp_timestamp', '_-_', [T.timestamp, T.timestamp], T.duration, (a: Timestamp, b: Timestamp) => durationOrError(a.nanos - b.nanos)),
  fn('subtract_timestamp_duration', '_-_', [T.timestamp, T.duration], T.timestamp, (t: Timestamp, d: Duration) => timestampOrError(t.nanos - d.nanos)),
  fn('subtract_duration_duration', '_-_', [T.duration, T.duration], T.duration, (a: Duration, b: Duration) => durationOrError(a.nanos - b.nanos)),
  ...accessor('getFullYear', (c) => c.year),
  ...accessor('getMonth', (c) => c.month),
  ...accessor('getDayOfYear', (c) => c.dayOfYear),
  ...accessor('getDayOfMonth', (c) => c.day - 1),
  ...accessor('getDate', (c) => c.day),
  ...accessor('getDayOfWeek', (c) => c.weekday),
  ...accessor('getHours', (c) => c.hour),
  ...accessor('getMinutes', (c) => c.minute),
  ...accessor('getSeconds', (c) => c.second),
  ...accessor('getMilliseconds', (c) => c.millis),
  durationPart('duration_to_hours', 'getHours', 3600n * NS_PER_S),
  durationPart('duration_to_minutes', 'getMinutes', 60n * NS_PER_S),
  durationPart('duration_to_seconds', 'getSeconds', NS_PER_S),
  durationPart('duration_to_milliseconds', 'getMilliseconds', 1_000_000n),
];
