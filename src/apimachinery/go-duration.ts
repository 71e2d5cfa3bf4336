// Go's time.ParseDuration, for the ?timeout= query parameter kube-apiserver reads with it and
// for the duration flags (--request-timeout, --shutdown-timeout, ...), which kube parses with it:
// an optional sign, then numbers (with an optional fraction) each followed by a unit of ns,
// us, µs, ms, s, m or h ("1m30s", "1.5h", "250ms"); "0" alone needs no unit. Errors carry Go's
// messages. The result is in milliseconds.

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseGoDuration(text: string): number {
  const invalid = (): Error => new Error(`time: invalid duration ${JSON.stringify(text)}`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let total = 0;
  while (rest !== '') {
    const num = /^(\d*)(?:\.(\d*))?/.exec(rest)!;
    if (num[0] === '' || num[0] === '.') throw invalid();
    rest = rest.slice(num[0].length);
    const unit = /^[^\d.]*/.exec(rest)![0];
    if (unit === '') throw new Error(`time: missing unit in duration ${JSON.stringify(text)}`);
    const ms = UNIT_MS[unit];
    if (ms === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(text)}`);
    total += Number(num[0].endsWith('.') ? num[0].slice(0, -1) : num[0]) * ms;
    rest = rest.slice(unit.length);
  }
  return sign * total;
}
