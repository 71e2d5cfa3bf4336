// Which UTCTime and GeneralizedTime values Go's cryptobyte accepts. It parses with time.Parse
// ("060102150405Z0700", falling back to "0601021504Z0700" for UTCTime; "20060102150405Z0700"
// for GeneralizedTime) and keeps the value only when formatting it again gives back the very
// same text. That round trip means: fixed-width digits, real calendar dates (leap years
// included), hours 00–23, minutes and seconds 00–59, no fractions, and a zone that is `Z` or a
// non-zero ±hhmm offset with mm below 60 ("+0000" formats as "Z" and so is refused).

import type { Der, GoRules } from './der.js';

const UTC_TIME = 0x17;
const GENERALIZED_TIME = 0x18;

const isLeap = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function digits(s: string, at: number, n: number): number | undefined {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return undefined;
    v = v * 10 + (c - 0x30);
  }
  return v;
}

/** Date and time fields from `at` on: MMDDhhmm[ss], then the zone to the end. */
function restValid(s: string, at: number, year: number, withSeconds: boolean, rules: GoRules): boolean {
  const month = digits(s, at, 2);
  const day = digits(s, at + 2, 2);
  const hour = digits(s, at + 4, 2);
  const minute = digits(s, at + 6, 2);
  let zoneAt = at + 8;
  if (month === undefined || day === undefined || hour === undefined || minute === undefined) return false;
  if (withSeconds) {
    const second = digits(s, zoneAt, 2);
    if (second === undefined || second > 59) return false;
    zoneAt += 2;
  }
  if (month < 1 || month > 12 || hour > 23 || minute > 59) return false;
  const daysInMonth = month === 2 && isLeap(year) ? 29 : DAYS[month - 1]!;
  if (day < 1 || day > daysInMonth) return false;
  const zone = s.slice(zoneAt);
  if (zone === 'Z') return true;
  if (zone.length !== 5 || (zone[0] !== '+' && zone[0] !== '-')) return false;
  const zh = digits(zone, 1, 2);
  const zm = digits(zone, 3, 2);
  if (zh === undefined || zm === undefined || zm > 59 || (zh === 0 && zm === 0)) return false;
  return !(rules.go124 && zh > 24);
}

function utcTimeValid(s: string, rules: GoRules): boolean {
  const yy = digits(s, 0, 2);
  if (yy === undefined) return false;
  const year = yy >= 69 ? 1900 + yy : 2000 + yy; // time.Parse's pivot, used for the day check
  // Go tries the seconds layout and falls back to the minutes one only when that fails to
  // parse; a text valid in one layout never parses in the other (their lengths differ).
  return restValid(s, 2, year, true, rules) || restValid(s, 2, year, false, rules);
}

function generalizedTimeValid(s: string, rules: GoRules): boolean {
  const year = digits(s, 0, 4);
  return year !== undefined && restValid(s, 4, year, true, rules);
}

/** readASN1Time: a UTCTime or GeneralizedTime Go accepts; anything else fails. */
export function readGoTime(der: Der, rules: GoRules): boolean {
  const tag = der.peek(UTC_TIME) ? UTC_TIME : der.peek(GENERALIZED_TIME) ? GENERALIZED_TIME : 0;
  if (!tag) return false;
  const c = der.read(tag);
  if (!c) return false;
  const text = Buffer.from(c.b.buffer, c.b.byteOffset + c.pos, c.length).toString('latin1');
  return tag === UTC_TIME ? utcTimeValid(text, rules) : generalizedTimeValid(text, rules);
}
