// The authentication flags kube-apiserver 1.33 has for OIDC/JWT issuers and the token webhook:
// --oidc-*, --authentication-config and --authentication-token-webhook-*, with kube's defaults
// and its checks of how they combine (messages as kube-apiserver prints them).

import { InvalidArgumentError, type Command } from 'commander';
import { parseGoDuration } from '../apimachinery/go-duration.js';

export interface OidcFlagsConfig {
  issuerURL: string;
  clientID: string;
  caFile?: string;
  usernameClaim: string;
  usernamePrefix: string;
  groupsClaim: string;
  groupsPrefix: string;
  requiredClaims: Record<string, string>;
  signingAlgs: string[];
}

export interface AuthenticationFlagsConfig {
  /** Set when --oidc-issuer-url and --oidc-client-id are. */
  oidc?: OidcFlagsConfig;
  authenticationConfigFile?: string;
  tokenWebhook?: { configFile: string; version: 'v1' | 'v1beta1'; cacheTtlMs: number };
}

const OIDC_OPTIONS = ['oidcIssuerUrl', 'oidcClientId', 'oidcCaFile', 'oidcUsernameClaim', 'oidcUsernamePrefix', 'oidcGroupsClaim', 'oidcGroupsPrefix', 'oidcRequiredClaim', 'oidcSigningAlgs'];

/** pflag's MapStringStringNoSplit: each value is one key=value pair, split at its first '='. */
const keyValue = (v: string, previous: Record<string, string>): Record<string, string> => {
  const i = v.indexOf('=');
  if (i < 0) throw new InvalidArgumentError(`${JSON.stringify(v)} must be formatted as key=value`);
  return { ...previous, [v.slice(0, i).trim()]: v.slice(i + 1).trim() };
};

/** pflag's StringSlice: comma-separated, and repeating the flag appends (the default is replaced). */
const stringSlice = (v: string, previous: string[] | undefined): string[] => [...(previous ?? []), ...v.split(',').map((s) => s.trim()).filter(Boolean)];

export function addAuthenticationFlags(program: Command): Command {
  return program
    .option('--oidc-issuer-url <url>', 'The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).')
    .option('--oidc-client-id <id>', 'The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.')
    .option('--oidc-ca-file <file>', "If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host's root CA set will be used. Re-read when the file changes (the issuer's next discovery or JWKS fetch uses the new CA; keys already fetched stay valid); a broken new file keeps the last good CA and fails the readyz check oidc-ca-file.")
    .option('--oidc-username-claim <claim>', "The OpenID claim to use as the user name. Note that claims other than the default ('sub') are not guaranteed to be unique and immutable.", 'sub')
    .option('--oidc-username-prefix <prefix>', "If provided, all usernames will be prefixed with this value. If not provided, username claims other than 'email' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value '-'.", '')
    .option('--oidc-groups-claim <claim>', 'If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be a string or array of strings.', '')
    .option('--oidc-groups-prefix <prefix>', 'If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.', '')
    .option('--oidc-required-claim <key=value>', 'A key=value pair that describes a required claim in the ID Token. If set, the claim is verified to be present in the ID Token with a matching value. Repeat this flag to specify multiple claims.', keyValue, {})
    .option('--oidc-signing-algs <algs>', "Comma-separated list of allowed JOSE asymmetric signing algorithms. JWTs with a supported 'alg' header values are: RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512. (default RS256)", stringSlice)
    .option('--authentication-config <file>', 'File with an apiserver.config.k8s.io AuthenticationConfiguration (v1alpha1 or v1beta1) configuring JWT token authenticators; re-read when it changes. Mutually exclusive with the --oidc-* flags.')
    .option('--authentication-token-webhook-config-file <file>', 'File with webhook configuration for token authentication in kubeconfig format. The API server will query the remote service to determine authentication for bearer tokens.')
    .option('--authentication-token-webhook-version <version>', 'The API version of the authentication.k8s.io TokenReview to send to and expect from the webhook (v1beta1 or v1).', 'v1beta1')
    .option('--authentication-token-webhook-cache-ttl <duration>', 'The duration to cache responses from the webhook token authenticator.', '2m');
}

/** Reads and checks the authentication flags after parsing. */
export function authenticationFlagsConfig(program: Command): AuthenticationFlagsConfig {
  const o = program.opts<Record<string, unknown>>();
  const oidcFlagsSet = OIDC_OPTIONS.some((k) => program.getOptionValueSource(k) === 'cli');
  const configFile = o.authenticationConfig as string | undefined;
  const out: AuthenticationFlagsConfig = {};
  if (configFile) {
    if (oidcFlagsSet) throw new InvalidArgumentError('authentication-config file and oidc-* flags are mutually exclusive');
    out.authenticationConfigFile = configFile;
  } else if (oidcFlagsSet) {
    const issuerURL = String(o.oidcIssuerUrl ?? '');
    const clientID = String(o.oidcClientId ?? '');
    if (!issuerURL || !clientID) throw new InvalidArgumentError('oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set');
    out.oidc = {
      issuerURL,
      clientID,
      caFile: o.oidcCaFile as string | undefined,
      usernameClaim: String(o.oidcUsernameClaim),
      usernamePrefix: String(o.oidcUsernamePrefix),
      groupsClaim: String(o.oidcGroupsClaim),
      groupsPrefix: String(o.oidcGroupsPrefix),
      requiredClaims: o.oidcRequiredClaim as Record<string, string>,
      signingAlgs: (o.oidcSigningAlgs as string[] | undefined) ?? ['RS256'],
    };
  }
  const webhookFile = o.authenticationTokenWebhookConfigFile as string | undefined;
  if (webhookFile) {
    const version = String(o.authenticationTokenWebhookVersion);
    if (version !== 'v1' && version !== 'v1beta1') throw new InvalidArgumentError(`unsupported authentication webhook version "${version}", supported versions are "v1", "v1beta1"`);
    let cacheTtlMs: number;
    try {
      cacheTtlMs = parseGoDuration(String(o.authenticationTokenWebhookCacheTtl));
      if (cacheTtlMs < 0) throw new Error('must not be negative');
    } catch (err) {
      throw new InvalidArgumentError(`--authentication-token-webhook-cache-ttl: ${(err as Error).message}`);
    }
    out.tokenWebhook = { configFile: webhookFile, version, cacheTtlMs };
  }
  return out;
}
