// The two time forms of Kubernetes objects, parsed and written as Go's time package does for
// metav1.Time (RFC 3339, written in UTC at second precision) and metav1.MicroTime (RFC 3339 with
// exactly six fractional digits, written in UTC with microseconds). A text Go cannot parse gets
// Go's own error message (kube answers it in a 400).

/** An instant: seconds since the epoch and the nanoseconds within that second. */
export interface GoTime {
  sec: number;
  nsec: number;
}

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

export class GoTimeError extends Error {}

/** Go's time quote(): printable ASCII as is (`"` and `\` escaped), other bytes as \xNN. */
function quote(s: string): string {
  let out = '"';
  for (const byte of Buffer.from(s, 'utf8')) {
    if (byte < 0x20 || byte >= 0x80) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    else out += byte === 0x22 || byte === 0x5c ? `\\${String.fromCharCode(byte)}` : String.fromCharCode(byte);
  }
  return `${out}"`;
}

const isDigit = (s: string, i: number): boolean => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

/** Go's getnum: one or two digits (exactly two when `fixed`). */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : [s.charCodeAt(0) - 48, s.slice(1)];
  return [(s.charCodeAt(0) - 48) * 10 + (s.charCodeAt(1) - 48), s.slice(2)];
}

const daysIn = (month: number, year: number): number => (month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!);

type Chunk = { prefix: string; std: 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'frac6' | 'tz' | 'end'; text: string };

const chunksOf = (micro: boolean): Chunk[] => [
  { prefix: '', std: 'year', text: '2006' },
  { prefix: '-', std: 'month', text: '01' },
  { prefix: '-', std: 'day', text: '02' },
  { prefix: 'T', std: 'hour', text: '15' },
  { prefix: ':', std: 'minute', text: '04' },
  { prefix: ':', std: 'second', text: '05' },
  ...(micro ? [{ prefix: '', std: 'frac6', text: '.000000' } as Chunk] : []),
  { prefix: '', std: 'tz', text: 'Z07:00' },
  { prefix: '', std: 'end', text: '' },
];

/** Go's time.Parse with the RFC 3339 layout (or the MicroTime layout); throws GoTimeError with Go's message. */
export function parseGoTime(value: string, micro: boolean): GoTime {
  const layout = micro ? RFC3339_MICRO : RFC3339;
  const fail = (layoutElem: string, valueElem: string): never => {
    throw new GoTimeError(`parsing time ${quote(value)} as ${quote(layout)}: cannot parse ${quote(valueElem)} as ${quote(layoutElem)}`);
  };
  const outOfRange = (what: string): never => {
    throw new GoTimeError(`parsing time ${quote(value)}: ${what} out of range`);
  };
  let rest = value;
  let year = 0;
  let month = 0;
  let day = 0;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let offset = 0;
  const chunks = chunksOf(micro);
  for (let c = 0; c < chunks.length; c++) {
    const { prefix, std, text } = chunks[c]!;
    for (let i = 0; i < prefix.length; i++) {
      if (rest[0] !== prefix[i]) fail(prefix, rest);
      rest = rest.slice(1);
    }
    const hold = rest;
    switch (std) {
      case 'end':
        if (rest.length) throw new GoTimeError(`parsing time ${quote(value)}: extra text: ${quote(rest)}`);
        break;
      case 'year': {
        if (rest.length < 4 || !isDigit(rest, 0) || !/^\d{4}/.test(rest)) fail(text, hold);
        year = Number(rest.slice(0, 4));
        rest = rest.slice(4);
        break;
      }
      case 'month':
      case 'day':
      case 'hour':
      case 'minute':
      case 'second': {
        const got = getnum(rest, std !== 'hour');
        if (!got) fail(text, hold);
        const [n, after] = got!;
        rest = after;
        if (std === 'month') {
          month = n;
          if (month <= 0 || month > 12) outOfRange('month');
        } else if (std === 'day') day = n;
        else if (std === 'hour') {
          hour = n;
          if (hour >= 24) outOfRange('hour');
        } else if (std === 'minute') {
          min = n;
          if (min >= 60) outOfRange('minute');
        } else {
          sec = n;
          if (sec >= 60) outOfRange('second');
          // A fractional second the layout does not name is taken anyway (Go does).
          if (!micro && rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest, 1)) {
            let n2 = 2;
            while (isDigit(rest, n2)) n2++;
            nsec = fraction(rest.slice(1, Math.min(n2, 10)));
            rest = rest.slice(n2);
          }
        }
        break;
      }
      case 'frac6': {
        if (rest.length < 7 || (rest[0] !== '.' && rest[0] !== ',') || !/^\d{6}/.test(rest.slice(1))) fail(text, hold);
        nsec = fraction(rest.slice(1, 7));
        rest = rest.slice(7);
        break;
      }
      case 'tz': {
        if (rest[0] === 'Z') {
          rest = rest.slice(1);
          break;
        }
        if (rest.length < 6 || rest[3] !== ':') fail(text, hold);
        const h = getnum(rest.slice(1, 3), true);
        const m = getnum(rest.slice(4, 6), true);
        if (!h || !m || (rest[0] !== '+' && rest[0] !== '-')) fail(text, hold);
        if (h![0] > 24) outOfRange('time zone offset hour');
        if (m![0] > 60) outOfRange('time zone offset minute');
        offset = (rest[0] === '-' ? -1 : 1) * (h![0] * 60 + m![0]) * 60;
        rest = rest.slice(6);
        break;
      }
    }
  }
  if (day < 1 || day > daysIn(month, year)) throw new GoTimeError(`parsing time ${quote(value)}: day out of range`);
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, min, sec, 0);
  return { sec: Math.floor(d.getTime() / 1000) - offset, nsec };
}

/** Go's parseNanoseconds: the digits after the point, scaled to nanoseconds (at most nine kept). */
function fraction(digits: string): number {
  return Number(digits.slice(0, 9).padEnd(9, '0'));
}

function utc(t: GoTime): string {
  return new Date(t.sec * 1000).toISOString().slice(0, 19);
}

/** metav1.Time's JSON: UTC, whole seconds. */
export const formatTime = (t: GoTime): string => `${utc(t)}Z`;

/** metav1.MicroTime's JSON: UTC, six fractional digits (truncated). */
export const formatMicroTime = (t: GoTime): string => `${utc(t)}.${String(Math.floor(t.nsec / 1000)).padStart(6, '0')}Z`;
