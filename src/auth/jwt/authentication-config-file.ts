// --authentication-config: an apiserver.config.k8s.io AuthenticationConfiguration (v1alpha1 or
// v1beta1, the versions kube-apiserver 1.33 serves; v1 arrived in 1.34), decoded strictly as
// kube's codec does (an unknown field is an error), validated and compiled. Each jwt entry
// becomes a JwtAuthenticatorSpec, the same shape the --oidc-* flags are converted to.

import { parse as parseYaml } from 'yaml';
import { aggregateFieldErrors, fieldErrors, FieldPath, type FieldError } from '../../apimachinery/field-error.js';
import { validateJwtAuthenticator, type CompiledRules, type JwtAuthenticatorSpec } from './jwt-config.js';

const GROUP = 'apiserver.config.k8s.io';
const SERVED_VERSIONS = ['v1alpha1', 'v1beta1'];
/** kube's cap on jwt authenticators in one file. */
const MAX_JWT_AUTHENTICATORS = 64;

export class AuthenticationConfigError extends Error {
  override name = 'AuthenticationConfigError';
}

export interface LoadedJwtAuthenticator {
  spec: JwtAuthenticatorSpec;
  rules: CompiledRules;
}

/** Parses, validates and compiles the file's text; throws AuthenticationConfigError with kube's message. */
export function parseAuthenticationConfig(text: string, disallowedIssuers: readonly string[]): LoadedJwtAuthenticator[] {
  if (text.length === 0) throw new AuthenticationConfigError('empty config data');
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: true, maxAliasCount: 100 });
  } catch (err) {
    throw new AuthenticationConfigError(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isRecord(doc)) throw new AuthenticationConfigError("couldn't get version/kind; json parse error: the document is not an object");
  const { apiVersion, kind } = doc;
  if (typeof kind !== 'string' || kind === '') throw new AuthenticationConfigError(`Object 'Kind' is missing in '${JSON.stringify(doc).slice(0, 200)}'`);
  const [group, version] = typeof apiVersion === 'string' && apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', String(apiVersion ?? '')];
  if (group !== GROUP || !SERVED_VERSIONS.includes(version!) || kind !== 'AuthenticationConfiguration') {
    throw new AuthenticationConfigError(`no kind "${kind}" is registered for version "${String(apiVersion)}" in scheme "pkg/runtime/scheme.go:100"`);
  }
  const unknown: string[] = [];
  const decoded = decodeConfiguration(doc, unknown);
  if (unknown.length) throw new AuthenticationConfigError(`strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`);
  const errors: FieldError[] = [];
  const root = FieldPath.root('jwt');
  if (decoded.anonymous !== undefined) errors.push(fieldErrors.forbidden('anonymous', 'anonymous authentication is not supported by this server: requests without credentials are always refused'));
  if (decoded.jwt.length > MAX_JWT_AUTHENTICATORS) errors.push(fieldErrors.tooMany(root, decoded.jwt.length, MAX_JWT_AUTHENTICATORS));
  const loaded: LoadedJwtAuthenticator[] = [];
  const seenIssuers = new Set<string>();
  const seenDiscovery = new Set<string>();
  if (decoded.jwt.length <= MAX_JWT_AUTHENTICATORS) {
    decoded.jwt.forEach((spec, i) => {
      const at = root.index(i);
      const r = validateJwtAuthenticator(spec, at, disallowedIssuers);
      errors.push(...r.errors);
      if (seenIssuers.has(spec.issuer.url)) errors.push(fieldErrors.duplicate(at.child('issuer', 'url'), spec.issuer.url));
      seenIssuers.add(spec.issuer.url);
      if (spec.issuer.discoveryURL) {
        if (seenDiscovery.has(spec.issuer.discoveryURL)) errors.push(fieldErrors.duplicate(at.child('issuer', 'discoveryURL'), spec.issuer.discoveryURL));
        seenDiscovery.add(spec.issuer.discoveryURL);
      }
      loaded.push({ spec, rules: r.rules });
    });
  }
  if (errors.length) throw new AuthenticationConfigError(aggregateFieldErrors(errors));
  return loaded;
}

// ── strict decoding ─────────────────────────────────────────────────────────────────────────

type Obj = Record<string, unknown>;
const isRecord = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class DecodeError extends AuthenticationConfigError {}

/** Reads an object's known fields; the others are reported as unknown (by their path). */
function fields(v: unknown, path: string, known: readonly string[], unknown: string[]): Obj {
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) throw new DecodeError(`json: cannot unmarshal ${jsonType(v)} into Go value of type object at ${path || 'the top level'}`);
  for (const k of Object.keys(v)) if (!known.includes(k)) unknown.push(path ? `${path}.${k}` : k);
  return v;
}

function str(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new DecodeError(`json: cannot unmarshal ${jsonType(v)} into Go struct field ${path} of type string`);
  return v;
}

function list(v: unknown, path: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new DecodeError(`json: cannot unmarshal ${jsonType(v)} into Go struct field ${path} of type array`);
  return v;
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v;
}

function decodeConfiguration(doc: Obj, unknown: string[]): { jwt: JwtAuthenticatorSpec[]; anonymous?: unknown } {
  const top = fields(doc, '', ['apiVersion', 'kind', 'jwt', 'anonymous'], unknown);
  return { jwt: list(top.jwt, 'jwt').map((j, i) => decodeJwt(j, `jwt[${i}]`, unknown)), anonymous: top.anonymous ?? undefined };
}

function decodeJwt(v: unknown, path: string, unknown: string[]): JwtAuthenticatorSpec {
  const o = fields(v, path, ['issuer', 'claimValidationRules', 'claimMappings', 'userValidationRules'], unknown);
  const ip = `${path}.issuer`;
  const iss = fields(o.issuer, ip, ['url', 'discoveryURL', 'certificateAuthority', 'audiences', 'audienceMatchPolicy'], unknown);
  const mp = `${path}.claimMappings`;
  const m = fields(o.claimMappings, mp, ['username', 'groups', 'uid', 'extra'], unknown);
  const prefixed = (x: unknown, p: string) => {
    const f = fields(x, p, ['claim', 'prefix', 'expression'], unknown);
    return { claim: str(f.claim, `${p}.claim`), prefix: str(f.prefix, `${p}.prefix`), expression: str(f.expression, `${p}.expression`) };
  };
  const uid = fields(m.uid, `${mp}.uid`, ['claim', 'expression'], unknown);
  return {
    issuer: {
      url: str(iss.url, `${ip}.url`) ?? '',
      discoveryURL: str(iss.discoveryURL, `${ip}.discoveryURL`),
      certificateAuthority: str(iss.certificateAuthority, `${ip}.certificateAuthority`),
      audiences: list(iss.audiences, `${ip}.audiences`).map((a, i) => str(a, `${ip}.audiences[${i}]`) ?? ''),
      audienceMatchPolicy: str(iss.audienceMatchPolicy, `${ip}.audienceMatchPolicy`),
    },
    claimValidationRules: list(o.claimValidationRules, `${path}.claimValidationRules`).map((r, i) => {
      const p = `${path}.claimValidationRules[${i}]`;
      const f = fields(r, p, ['claim', 'requiredValue', 'expression', 'message'], unknown);
      return { claim: str(f.claim, `${p}.claim`), requiredValue: str(f.requiredValue, `${p}.requiredValue`), expression: str(f.expression, `${p}.expression`), message: str(f.message, `${p}.message`) };
    }),
    claimMappings: {
      username: prefixed(m.username, `${mp}.username`),
      groups: prefixed(m.groups, `${mp}.groups`),
      uid: { claim: str(uid.claim, `${mp}.uid.claim`), expression: str(uid.expression, `${mp}.uid.expression`) },
      extra: list(m.extra, `${mp}.extra`).map((x, i) => {
        const p = `${mp}.extra[${i}]`;
        const f = fields(x, p, ['key', 'valueExpression'], unknown);
        return { key: str(f.key, `${p}.key`) ?? '', valueExpression: str(f.valueExpression, `${p}.valueExpression`) ?? '' };
      }),
    },
    userValidationRules: list(o.userValidationRules, `${path}.userValidationRules`).map((r, i) => {
      const p = `${path}.userValidationRules[${i}]`;
      const f = fields(r, p, ['expression', 'message'], unknown);
      return { expression: str(f.expression, `${p}.expression`) ?? '', message: str(f.message, `${p}.message`) };
    }),
  };
}
