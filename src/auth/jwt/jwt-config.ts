// One JWT authenticator's configuration, as kube's internal apiserver.JWTAuthenticator, whether
// it came from the --oidc-* flags (oidcFlagsToJwtAuthenticator, kube 1.33's own conversion) or
// from an AuthenticationConfiguration file; and kube's validation of it, which also compiles
// its CEL expressions. Errors are field errors rendered as apimachinery renders them.

import { X509Certificate } from 'node:crypto';
import { fieldErrors, FieldPath, type FieldError } from '../../apimachinery/field-error.js';
import { compileExpression, type CompiledExpression } from './claims-cel.js';
import { CelCompileError } from '../cel-bounds.js';

export interface PrefixedClaimOrExpression {
  claim?: string;
  /** Absent and '' differ: a claim needs a prefix field, '' disables prefixing. */
  prefix?: string;
  expression?: string;
}

export interface JwtAuthenticatorSpec {
  issuer: { url: string; discoveryURL?: string; certificateAuthority?: string; audiences: string[]; audienceMatchPolicy?: string };
  claimValidationRules: { claim?: string; requiredValue?: string; expression?: string; message?: string }[];
  claimMappings: {
    username: PrefixedClaimOrExpression;
    groups: PrefixedClaimOrExpression;
    uid: { claim?: string; expression?: string };
    extra: { key: string; valueExpression: string }[];
  };
  userValidationRules: { expression: string; message?: string }[];
}

/** The CEL of one authenticator, compiled. */
export interface CompiledRules {
  username?: CompiledExpression;
  groups?: CompiledExpression;
  uid?: CompiledExpression;
  extra: { key: string; expression: CompiledExpression }[];
  claimValidation: { expression: CompiledExpression; message: string }[];
  userValidation: { expression: CompiledExpression; message: string }[];
}

/** kube's allow-list of JOSE algorithms (oidc.AllValidSigningAlgorithms): asymmetric only. */
export const ALL_SIGNING_ALGS = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'] as const;

export interface OidcFlags {
  issuerURL: string;
  clientID: string;
  usernameClaim: string;
  usernamePrefix: string;
  groupsClaim: string;
  groupsPrefix: string;
  requiredClaims: Record<string, string>;
  caPem?: string;
}

/** kube 1.33's ToAuthenticationConfig: the legacy flags as one structured JWT authenticator. */
export function oidcFlagsToJwtAuthenticator(f: OidcFlags): JwtAuthenticatorSpec {
  // Legacy defaulting: claims other than email are prefixed with the issuer URL and '#'; '-' disables.
  let usernamePrefix = f.usernamePrefix;
  if (usernamePrefix === '' && f.usernameClaim !== 'email') usernamePrefix = `${f.issuerURL}#`;
  if (f.usernamePrefix === '-') usernamePrefix = '';
  return {
    issuer: { url: f.issuerURL, audiences: [f.clientID], certificateAuthority: f.caPem },
    claimValidationRules: Object.entries(f.requiredClaims).map(([claim, requiredValue]) => ({ claim, requiredValue })),
    claimMappings: {
      username: { claim: f.usernameClaim, prefix: usernamePrefix },
      groups: f.groupsClaim ? { claim: f.groupsClaim, prefix: f.groupsPrefix } : {},
      uid: {},
      extra: [],
    },
    userValidationRules: [],
  };
}

/** Validates one authenticator (kube's validateJWTAuthenticator) and compiles its CEL. */
export function validateJwtAuthenticator(a: JwtAuthenticatorSpec, path: FieldPath, disallowedIssuers: readonly string[]): { rules: CompiledRules; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const rules: CompiledRules = { extra: [], claimValidation: [], userValidation: [] };
  const compile = (source: string, variable: 'claims' | 'user', at: FieldPath): CompiledExpression | undefined => {
    try {
      return compileExpression(source, variable);
    } catch (err) {
      if (!(err instanceof CelCompileError)) throw err;
      errors.push(fieldErrors.invalid(at, source, err.message));
      return undefined;
    }
  };
  validateIssuer(a.issuer, path.child('issuer'), disallowedIssuers, errors);

  // claimValidationRules
  const seenClaims = new Set<string>();
  const seenExpressions = new Set<string>();
  a.claimValidationRules.forEach((rule, i) => {
    const at = path.child('claimValidationRules').index(i);
    if (rule.claim && rule.expression) errors.push(fieldErrors.invalid(at, rule.claim, "claim and expression can't both be set"));
    else if (!rule.claim && !rule.expression) errors.push(fieldErrors.required(at, 'claim or expression is required'));
    else if (rule.claim) {
      if (rule.message) errors.push(fieldErrors.invalid(at.child('message'), rule.message, 'may not be specified when claim is set'));
      if (seenClaims.has(rule.claim)) errors.push(fieldErrors.duplicate(at.child('claim'), rule.claim));
      seenClaims.add(rule.claim);
    } else {
      if (rule.requiredValue) errors.push(fieldErrors.invalid(at.child('requiredValue'), rule.requiredValue, 'may not be specified when expression is set'));
      if (seenExpressions.has(rule.expression!)) {
        errors.push(fieldErrors.duplicate(at.child('expression'), rule.expression));
        return;
      }
      seenExpressions.add(rule.expression!);
      const e = compile(rule.expression!, 'claims', at.child('expression'));
      if (e) rules.claimValidation.push({ expression: e, message: rule.message ?? '' });
    }
  });

  // claimMappings
  const m = a.claimMappings;
  const mp = path.child('claimMappings');
  rules.username = prefixedClaimOrExpression(m.username, mp.child('username'), true, errors, compile);
  rules.groups = prefixedClaimOrExpression(m.groups, mp.child('groups'), false, errors, compile);
  if (m.uid.claim && m.uid.expression) errors.push(fieldErrors.invalid(mp.child('uid'), '', "claim and expression can't both be set"));
  else if (m.uid.expression) rules.uid = compile(m.uid.expression, 'claims', mp.child('uid', 'expression'));
  const seenKeys = new Set<string>();
  m.extra.forEach((x, i) => {
    const at = mp.child('extra').index(i);
    errors.push(...domainPrefixedPath(at.child('key'), x.key));
    if (x.key !== x.key.toLowerCase()) errors.push(fieldErrors.invalid(at.child('key'), x.key, 'must be lowercase'));
    if (isKubernetesDomain(x.key)) errors.push(fieldErrors.invalid(at.child('key'), x.key, 'k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use'));
    if (seenKeys.has(x.key)) {
      errors.push(fieldErrors.duplicate(at.child('key'), x.key));
      return;
    }
    seenKeys.add(x.key);
    if (!x.valueExpression) {
      errors.push(fieldErrors.required(at.child('valueExpression')));
      return;
    }
    const e = compile(x.valueExpression, 'claims', at.child('valueExpression'));
    if (e) rules.extra.push({ key: x.key, expression: e });
  });
  // kube: a username expression reading claims.email must also read claims.email_verified somewhere.
  if (rules.username?.selects('email')) {
    const verified = [rules.username, ...rules.extra.map((x) => x.expression), ...rules.claimValidation.map((r) => r.expression)].some((e) => e.selects('email_verified'));
    if (!verified) {
      errors.push(
        fieldErrors.invalid(
          mp.child('username', 'expression'),
          m.username.expression,
          'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
        ),
      );
    }
  }

  // userValidationRules
  const seenUserExpressions = new Set<string>();
  a.userValidationRules.forEach((rule, i) => {
    const at = path.child('userValidationRules').index(i);
    if (!rule.expression) {
      errors.push(fieldErrors.required(at.child('expression')));
      return;
    }
    if (seenUserExpressions.has(rule.expression)) {
      errors.push(fieldErrors.duplicate(at.child('expression'), rule.expression));
      return;
    }
    seenUserExpressions.add(rule.expression);
    const e = compile(rule.expression, 'user', at.child('expression'));
    if (e) rules.userValidation.push({ expression: e, message: rule.message ?? '' });
  });
  return { rules, errors };
}

function prefixedClaimOrExpression(
  m: PrefixedClaimOrExpression,
  at: FieldPath,
  required: boolean,
  errors: FieldError[],
  compile: (s: string, v: 'claims', at: FieldPath) => CompiledExpression | undefined,
): CompiledExpression | undefined {
  if (m.expression && m.claim) errors.push(fieldErrors.invalid(at, '', "claim and expression can't both be set"));
  else if (!m.expression && !m.claim && required) errors.push(fieldErrors.required(at, 'claim or expression is required'));
  else if (m.expression) {
    if (m.prefix !== undefined) errors.push(fieldErrors.invalid(at.child('prefix'), m.prefix, 'may not be specified when expression is set'));
    return compile(m.expression, 'claims', at.child('expression'));
  } else if (m.claim && m.prefix === undefined) {
    errors.push(fieldErrors.required(at.child('prefix'), 'prefix is required when claim is set. It can be set to an empty string to disable prefixing'));
  }
  return undefined;
}

function validateIssuer(issuer: JwtAuthenticatorSpec['issuer'], at: FieldPath, disallowed: readonly string[], errors: FieldError[]): void {
  if (!issuer.url) errors.push(fieldErrors.required(at.child('url')));
  else errors.push(...validateURL(issuer.url, disallowed, at.child('url')));
  if (issuer.discoveryURL) {
    if (issuer.url && issuer.url.replace(/\/+$/, '') === issuer.discoveryURL.replace(/\/+$/, '')) {
      errors.push(fieldErrors.invalid(at.child('discoveryURL'), issuer.discoveryURL, 'discoveryURL must be different from URL'));
    }
    errors.push(...validateURL(issuer.discoveryURL, [], at.child('discoveryURL')));
  }
  const aud = at.child('audiences');
  if (issuer.audiences.length === 0) errors.push(fieldErrors.required(aud, `at least one ${aud.toString()} is required`));
  else {
    const seen = new Set<string>();
    issuer.audiences.forEach((a, i) => {
      if (!a) errors.push(fieldErrors.required(aud.index(i)));
      if (seen.has(a)) errors.push(fieldErrors.duplicate(aud.index(i), a));
      seen.add(a);
    });
    const policy = issuer.audienceMatchPolicy ?? '';
    if (issuer.audiences.length > 1 && policy !== 'MatchAny') errors.push(fieldErrors.invalid(at.child('audienceMatchPolicy'), policy, 'audienceMatchPolicy must be MatchAny for multiple audiences'));
    if (issuer.audiences.length === 1 && policy !== '' && policy !== 'MatchAny') {
      errors.push(fieldErrors.invalid(at.child('audienceMatchPolicy'), policy, 'audienceMatchPolicy must be empty or MatchAny for single audience'));
    }
  }
  if (issuer.certificateAuthority) {
    const problem = caProblem(issuer.certificateAuthority);
    if (problem) errors.push(fieldErrors.invalid(at.child('certificateAuthority'), '<omitted>', problem));
  }
}

function validateURL(text: string, disallowed: readonly string[], at: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (disallowed.includes(text)) errors.push(fieldErrors.invalid(at, text, `URL must not overlap with disallowed issuers: [${[...disallowed].sort().join(' ')}]`));
  let u: URL;
  try {
    u = new URL(text);
  } catch (err) {
    errors.push(fieldErrors.invalid(at, text, (err as Error).message));
    return errors;
  }
  if (u.protocol !== 'https:') errors.push(fieldErrors.invalid(at, text, 'URL scheme must be https'));
  if (u.username || u.password) errors.push(fieldErrors.invalid(at, text, 'URL must not contain a username or password'));
  if (u.search) errors.push(fieldErrors.invalid(at, text, 'URL must not contain a query'));
  if (u.hash) errors.push(fieldErrors.invalid(at, text, 'URL must not contain a fragment'));
  return errors;
}

/** Why a PEM bundle is unusable as a CA pool, or '' (client-go's NewPoolFromBytes messages). */
export function caProblem(pem: string): string {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return 'data does not contain any valid RSA or ECDSA certificates';
  try {
    for (const b of blocks) new X509Certificate(b);
  } catch (err) {
    return (err as Error).message;
  }
  return '';
}

/** apimachinery's IsDomainPrefixedPath. */
function domainPrefixedPath(at: FieldPath, key: string): FieldError[] {
  if (key === '') return [fieldErrors.required(at)];
  const parts = key.split('/');
  if (parts.length < 2) return [fieldErrors.invalid(at, key, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const host = parts[0]!;
  const errors: FieldError[] = [];
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(host) || host.length > 253) {
    errors.push(fieldErrors.invalid(at, host, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
  }
  const rest = parts.slice(1).join('/');
  if (!/^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(rest)) errors.push(fieldErrors.invalid(at, rest, 'Invalid path'));
  return errors;
}

function isKubernetesDomain(key: string): boolean {
  const slash = key.indexOf('/');
  const domain = slash < 0 ? '' : key.slice(0, slash);
  return domain === 'kubernetes.io' || domain.endsWith('.kubernetes.io') || domain === 'k8s.io' || domain.endsWith('.k8s.io');
}

export { FieldPath };
