// Kubernetes label selectors (`a=b,c!=d,e in (f,g),h notin (i),j,!k,l>3`): parsing with
// apimachinery's grammar and messages, and matching against an object's labels.

import { aggregateFieldErrors, FieldPath, fieldErrors, type FieldError } from './field-error.js';
import { badRequest } from './status-error.js';
import { isQualifiedName, isValidLabelValue } from './validation/names.js';

export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export interface LabelSelector {
  requirements: LabelRequirement[];
  /** True when the selector has no requirements (matches everything). */
  empty: boolean;
  matches(labels: Record<string, string> | undefined): boolean;
}

type Token = { kind: 'id' | 'op' | '(' | ')' | ',' | 'end'; text: string };
const SPECIAL = '=!(),><';

function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: c, text: c });
      i++;
    } else if (SPECIAL.includes(c)) {
      const two = input.slice(i, i + 2);
      const op = two === '==' || two === '!=' ? two : c;
      tokens.push({ kind: 'op', text: op });
      i += op.length;
    } else {
      let j = i;
      // Stryker disable next-line EqualityOperator: equivalent, one step past the end slices the same text
      while (j < input.length && !/\s/.test(input[j]!) && !SPECIAL.includes(input[j]!)) j++;
      tokens.push({ kind: 'id', text: input.slice(i, j) });
      i = j;
    }
  }
  tokens.push({ kind: 'end', text: '' });
  return tokens;
}

class ParseError extends Error {}

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.pos]!;
  }
  private next(): Token {
    return this.tokens[this.pos++]!;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    if (this.peek().kind === 'end') return reqs;
    for (;;) {
      reqs.push(this.requirement());
      const t = this.next();
      if (t.kind === 'end') return reqs;
      if (t.kind !== ',') throw new ParseError(`found '${t.text}', expected: ',' or 'end of string'`);
      if (this.peek().kind === 'end') throw new ParseError("found '', expected: identifier after ','");
    }
  }

  private requirement(): LabelRequirement {
    let negated = false;
    if (this.peek().kind === 'op' && this.peek().text === '!') {
      this.next();
      negated = true;
    }
    const keyToken = this.next();
    if (keyToken.kind !== 'id') throw new ParseError(`found '${keyToken.text}', expected: identifier`);
    const key = keyToken.text;
    const after = this.peek();
    if (after.kind === 'end' || after.kind === ',') return checked(key, negated ? '!' : 'exists', []);
    if (negated) throw new ParseError(`found '${after.text}', expected: ',' or 'end of string'`);
    const op = this.operator();
    if (op === 'in' || op === 'notin') return checked(key, op, this.valueSet());
    return checked(key, op, [this.exactValue()]);
  }

  private operator(): LabelOperator {
    const t = this.next();
    if (t.kind === 'id' && (t.text === 'in' || t.text === 'notin')) return t.text;
    if (t.kind === 'op') {
      if (t.text === '=' || t.text === '==' || t.text === '!=') return t.text;
      if (t.text === '>') return 'gt';
      if (t.text === '<') return 'lt';
    }
    throw new ParseError(`found '${t.text}', expected: '=', '!=', '==', 'in', notin'`);
  }

  private valueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') throw new ParseError(`found '${open.text}', expected: '('`);
    const values: string[] = [];
    for (;;) {
      const t = this.next();
      if (t.kind === 'id') {
        values.push(t.text);
        const sep = this.next();
        if (sep.kind === ')') return values;
        if (sep.kind !== ',') throw new ParseError(`found '${sep.text}', expected: ',', ')'`);
      } else if (t.kind === ')') {
        return values;
      } else if (t.kind === ',') {
        values.push('');
      } else {
        throw new ParseError(`found '${t.text}', expected: ',', ')' or identifier`);
      }
    }
  }

  private exactValue(): string {
    const t = this.peek();
    if (t.kind === 'end' || t.kind === ',') return '';
    this.next();
    if (t.kind === 'id') return t.text;
    throw new ParseError(`found '${t.text}', expected: identifier`);
  }
}

/** apimachinery's NewRequirement checks: key and values must be valid, value counts per operator. */
function checked(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const errs: FieldError[] = [];
  for (const msg of isQualifiedName(key)) errs.push(fieldErrors.invalid(FieldPath.root('key'), key, msg));
  const valuesPath = FieldPath.root('values');
  if ((operator === 'in' || operator === 'notin') && values.length === 0) {
    errs.push(fieldErrors.invalid(valuesPath, values, "for 'in', 'notin' operators, values set can't be empty"));
  }
  // Gt and Lt always come with exactly one value (exactValue reads one, possibly empty).
  if ((operator === 'gt' || operator === 'lt') && !/^-?\d+$/.test(values[0]!)) {
    errs.push(fieldErrors.invalid(valuesPath.index(0), values[0]!, 'for \'Gt\', \'Lt\' operators, the value must be an integer'));
  }
  // Every operator's values are label values too (apimachinery checks them after the operator's rule).
  values.forEach((v, i) => {
    for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(valuesPath.index(i), v, msg));
  });
  if (errs.length) throw new ParseError(aggregateFieldErrors(errs));
  return { key, operator, values };
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = labels[r.key];
  switch (r.operator) {
    case '=':
    case '==':
    case 'in':
      return has && r.values.includes(v!);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(v!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(v!)) return false;
      const n = Number(v);
      return r.operator === 'gt' ? n > Number(r.values[0]) : n < Number(r.values[0]);
    }
  }
}

/** Parses a `labelSelector` query value; a bad one is a 400 BadRequest in kube's words. */
export function parseLabelSelector(input: string | undefined): LabelSelector {
  let requirements: LabelRequirement[];
  try {
    requirements = new Parser(lex(input ?? '')).parse();
  } catch (err) {
    if (err instanceof ParseError) throw badRequest(`unable to parse requirement: ${err.message}`);
    throw err;
  }
  return {
    requirements,
    empty: requirements.length === 0,
    matches: (labels) => requirements.every((r) => requirementMatches(r, labels ?? {})),
  };
}
