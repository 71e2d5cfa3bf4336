// The functions and type names of Kubernetes' CEL environment as 1.33 offers it to new
// expressions (compatibility version 1.32): CEL's standard library, the strings (v2), sets and
// optional extensions, and Kubernetes' lists, regex, urls, ip, cidr, quantity, format and authz
// (with selectors) libraries. Not included: semver and image (1.33-only, not offered to new
// expressions yet), jsonpatch (mutating policies only), ext.math, ext.encoders, cel.bind.

import { FunctionLibrary } from './functions.js';
import { authzOverloads } from './lib/authz.js';
import { coreOverloads } from './lib/core.js';
import { formatOverloads } from './lib/format.js';
import { listsOverloads } from './lib/lists.js';
import { netOverloads } from './lib/net.js';
import { optionalOverloads } from './lib/optional.js';
import { quantityOverloads } from './lib/quantity.js';
import { regexOverloads } from './lib/regex.js';
import { setsOverloads } from './lib/sets.js';
import { stringsOverloads } from './lib/strings.js';
import { timeOverloads } from './lib/time.js';
import { urlOverloads } from './lib/urls.js';

export const kubernetesLibrary = new FunctionLibrary([
  ...coreOverloads,
  ...timeOverloads,
  ...stringsOverloads,
  ...setsOverloads,
  ...optionalOverloads,
  ...listsOverloads,
  ...regexOverloads,
  ...urlOverloads,
  ...netOverloads,
  ...quantityOverloads,
  ...formatOverloads,
  ...authzOverloads,
]);

/** Identifiers that name types as values (`type(x) == int`, `type(cidr(s)) == net.CIDR`). */
export const kubernetesTypeNames: ReadonlySet<string> = new Set([
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'list',
  'map',
  'null_type',
  'type',
  'google.protobuf.Timestamp',
  'google.protobuf.Duration',
  'net.IP',
  'net.CIDR',
]);
