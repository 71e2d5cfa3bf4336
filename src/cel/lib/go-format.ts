// Go's text form of a double, as CEL's string(double) gives it: strconv.FormatFloat(f, 'g', -1, 64).

/** Go's shortest %g: the exponent form when the decimal exponent is below -4 or at least 6. */
export function formatDouble(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  // Shortest round-trip digits and the decimal exponent, from JS's own shortest form.
  const [mantissa, expText] = f.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const neg = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  // Go: %e when exp < -4 || exp >= eprec, and eprec is 6 for the shortest formatting.
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp).toString().padStart(2, '0');
    return `${neg ? '-' : ''}${m}e${exp < 0 ? '-' : '+'}${e}`;
  }
  let out: string;
  if (exp >= digits.length - 1) out = digits + '0'.repeat(exp - (digits.length - 1));
  else if (exp >= 0) out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  else out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  return (neg ? '-' : '') + out;
}
