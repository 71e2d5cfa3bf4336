// Kubernetes' format library: named string formats (format.dns1123Label(), format.named('uri'),
// ...) whose validate() answers optional.none() for a valid string, else the list of problems.

import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, maskTrailingDash, maxLenError, regexError } from '../../apimachinery/validation/names.js';
import { fn, method, type Overload } from '../functions.js';
import { T } from '../types.js';
import { CelError, Opaque, Optional } from '../values.js';
import { goParseRequestURI } from './go-url.js';
import { parseTimestamp } from './time.js';

export const FORMAT_TYPE = 'kubernetes.NamedFormat';

export class FormatValue extends Opaque {
  readonly typeName = FORMAT_TYPE;
  constructor(
    readonly name: string,
    readonly validate: (s: string) => string[],
  ) {
    super();
  }
  equals(other: Opaque): boolean {
    return other instanceof FormatValue && other.name === this.name;
  }
}

const DNS1035_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_RE = new RegExp(`^${DNS1035_FMT}$`);
const DNS1035_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/** IsDNS1035Label, with apimachinery's messages. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value, 'utf8') > 63) errs.push(maxLenError(63));
  if (!DNS1035_RE.test(value)) errs.push(regexError(DNS1035_MSG, DNS1035_FMT, 'my-name', 'abc-123'));
  return errs;
}

const prefixed = (check: (s: string) => string[]) => (s: string) => check(maskTrailingDash(s));

const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** strfmt also takes a date-time without a zone, and minutes precision. */
const LOCAL_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?$/i;

function validDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

const FORMATS: Record<string, FormatValue> = {
  dns1123Label: new FormatValue('DNS1123Label', isDNS1123Label),
  dns1123Subdomain: new FormatValue('DNS1123Subdomain', isDNS1123Subdomain),
  dns1035Label: new FormatValue('DNS1035Label', isDNS1035Label),
  qualifiedName: new FormatValue('QualifiedName', isQualifiedName),
  dns1123LabelPrefix: new FormatValue('DNS1123LabelPrefix', prefixed(isDNS1123Label)),
  dns1123SubdomainPrefix: new FormatValue('DNS1123SubdomainPrefix', prefixed(isDNS1123Subdomain)),
  dns1035LabelPrefix: new FormatValue('DNS1035LabelPrefix', prefixed(isDNS1035Label)),
  labelValue: new FormatValue('LabelValue', isValidLabelValue),
  uri: new FormatValue('URI', (s) => {
    try {
      goParseRequestURI(s);
      return [];
    } catch (err) {
      return [(err as Error).message];
    }
  }),
  uuid: new FormatValue('uuid', (s) => (UUID.test(s) ? [] : ['does not match the UUID format'])),
  byte: new FormatValue('byte', (s) => (BASE64.test(s) ? [] : ['invalid base64'])),
  date: new FormatValue('date', (s) => (validDate(s) ? [] : ['invalid date'])),
  datetime: new FormatValue('datetime', (s) => (!(parseTimestamp(s) instanceof CelError) || LOCAL_DATETIME.test(s) ? [] : ['invalid datetime'])),
};

const F = T.opaque(FORMAT_TYPE);

export const formatOverloads: Overload[] = [
  ...Object.entries(FORMATS).map(([name, f]) => fn(`format.${name}`, `format.${name}`, [], F, () => f)),
  fn('format-named', 'format.named', [T.string], T.optional(F), (name: string) => (Object.hasOwn(FORMATS, name) ? Optional.of(FORMATS[name]!) : Optional.NONE)),
  method('format-validate', 'validate', [F, T.string], T.optional(T.list(T.string)), (f: FormatValue, s: string) => {
    const errs = f.validate(s);
    return errs.length ? Optional.of(errs) : Optional.NONE;
  }),
];
