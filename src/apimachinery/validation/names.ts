// Name and label rules of apimachinery's util/validation, with its 1.33 messages
// (lengths in "characters": docs/api-compatibility.md, decision 6).

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelValueFmt = `(${qualifiedNameFmt})?`;

const anchored = (fmt: string): RegExp => new RegExp(`^${fmt}$`);
const dns1123LabelRe = anchored(dns1123LabelFmt);
const dns1123SubdomainRe = anchored(dns1123SubdomainFmt);
const qualifiedNameRe = anchored(qualifiedNameFmt);
const labelValueRe = anchored(labelValueFmt);

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;
const QUALIFIED_NAME_MAX = 63;
const LABEL_VALUE_MAX = 63;

/** Go's RegexError: the message, examples, and the regex used. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join('or ')}regex used for validation is '${fmt}')`;
}

export const maxLenError = (n: number): string => `must be no more than ${n} characters`;
export const EMPTY_ERROR = 'must be non-empty';

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!dns1123LabelRe.test(value)) {
    // A valid subdomain that is not a valid label (length already checked) must contain dots.
    errs.push(dns1123SubdomainRe.test(value) ? 'must not contain dots' : regexError(DNS1123_LABEL_MSG, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/**
 * Qualified names found valid lately: the same label keys and finalizers are checked on every
 * write. Only valid names are remembered (their answer is an empty list); cleared when full.
 */
const validQualifiedNames = new Set<string>();
const VALID_QUALIFIED_NAMES_MAX = 4096;

/** Label keys, annotation keys (lower-cased first), finalizers: `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  if (validQualifiedNames.has(value)) return [];
  const errs = qualifiedNameErrors(value);
  if (errs.length === 0) {
    if (validQualifiedNames.size >= VALID_QUALIFIED_NAMES_MAX) validQualifiedNames.clear();
    validQualifiedNames.add(value);
  }
  return errs;
}

function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!labelValueRe.test(value)) errs.push(regexError(LABEL_VALUE_MSG, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** Validates an object name; `prefix` is true for generateName (a trailing '-' is then allowed). */
export type NameValidator = (name: string, prefix: boolean) => string[];

/** Go's maskTrailingDash: a generateName may end in '-' since random characters follow. */
export const maskTrailingDash = (name: string): string => (name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name);

export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
