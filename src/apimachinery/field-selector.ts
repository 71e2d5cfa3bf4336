// Field selectors (`metadata.name=x,spec.signerName!=y`) with apimachinery's escaping
// (`\,` `\=` `\\`) and operators. Which field labels a kind supports is the caller's rule.

import { badRequest } from './status-error.js';

export interface FieldRequirement {
  field: string;
  operator: '=' | '==' | '!=';
  value: string;
}

export interface FieldSelector {
  requirements: FieldRequirement[];
  empty: boolean;
  matches(fields: Record<string, string>): boolean;
  /** The value required for `field` by an `=`/`==` term, if any (e.g. metadata.name → a single get). */
  exactValue(field: string): string | undefined;
}

/** Splits on commas that are not escaped. */
function splitTerms(input: string): string[] {
  const terms: string[] = [];
  let current = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    if (c === '\\' && i + 1 < input.length) {
      current += c + input[++i];
    } else if (c === ',') {
      terms.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  terms.push(current);
  return terms;
}

function unescapeValue(raw: string, whole: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c !== '\\') {
      // An unescaped comma never gets here: splitTerms split the input on it.
      if (c === '=') throw badRequest(`invalid field selector: invalid selector: '${whole}'; can't understand '${raw}'`);
      out += c;
      continue;
    }
    const n = raw[++i];
    if (n !== '\\' && n !== ',' && n !== '=') throw badRequest(`invalid field selector: invalid escape sequence: \\${n ?? ''}`);
    out += n;
  }
  return out;
}

/** Finds the first operator outside escapes, trying `!=`, `==`, `=` as apimachinery does. */
function splitTerm(term: string): { field: string; operator: FieldRequirement['operator']; raw: string } | undefined {
  // Stryker disable next-line EqualityOperator: equivalent, no operator starts past the end of the term
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) return { field: term.slice(0, i), operator: op, raw: term.slice(i + op.length) };
    }
  }
  return undefined;
}

export function parseFieldSelector(input: string | undefined): FieldSelector {
  const requirements: FieldRequirement[] = [];
  const text = input ?? '';
  if (text.trim() !== '') {
    for (const term of splitTerms(text)) {
      if (term === '') continue;
      const parts = splitTerm(term);
      if (!parts) throw badRequest(`invalid field selector: invalid selector: '${text}'; can't understand '${term}'`);
      requirements.push({ field: parts.field.trim(), operator: parts.operator, value: unescapeValue(parts.raw, text) });
    }
  }
  return {
    requirements,
    empty: requirements.length === 0,
    matches: (fields) => requirements.every((r) => (r.operator === '!=' ? fields[r.field] !== r.value : fields[r.field] === r.value)),
    exactValue: (field) => requirements.find((r) => r.field === field && r.operator !== '!=')?.value,
  };
}
