// A webhook's connection from a kubeconfig file, as kube reads every webhook's config file
// (--authentication-token-webhook-config-file, --authorization-webhook-config-file, a structured
// authorizer's KubeConfigFile): the current context's cluster (server URL, CA by file or inline
// data, tls-server-name, insecure-skip-tls-verify) and user (client certificate and key by file
// or inline data, or a bearer token by value or file). Relative file paths are relative to the
// kubeconfig's folder, as in client-go.

import { readFileSync } from 'node:fs';
import https from 'node:https';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { WebhookTarget } from './webhook-transport.js';

export class WebhookConfigError extends Error {
  override name = 'WebhookConfigError';
}

export interface WebhookConnection {
  server: URL;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
  /** The name the server's certificate must carry, when not the URL's host (`tls-server-name`). */
  tlsServerName?: string;
  insecureSkipTLSVerify: boolean;
}

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const named = (list: unknown, name: string | undefined): Obj | undefined => {
  if (!Array.isArray(list)) return undefined;
  const entries = list.map(rec);
  if (name === undefined) return entries.length === 1 ? entries[0] : undefined;
  return entries.find((e) => e.name === name);
};

export function loadWebhookKubeconfig(path: string): WebhookConnection {
  let doc: Obj;
  try {
    doc = rec(parseYaml(readFileSync(path, 'utf8')));
  } catch (err) {
    throw new WebhookConfigError(`${path}: ${(err as Error).message.split('\n')[0]}`);
  }
  const dir = dirname(path);
  const contextName = typeof doc['current-context'] === 'string' && doc['current-context'] ? doc['current-context'] : undefined;
  const context = contextName ? rec(named(doc.contexts, contextName)?.context) : undefined;
  if (contextName && !context) throw new WebhookConfigError(`${path}: invalid configuration: context was not found for specified context: ${contextName}`);
  const cluster = rec(named(doc.clusters, context?.cluster as string | undefined)?.cluster);
  const user = rec(named(doc.users, context?.user as string | undefined)?.user);
  if (typeof cluster.server !== 'string' || !cluster.server) throw new WebhookConfigError(`${path}: invalid configuration: no server found for cluster`);
  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch {
    throw new WebhookConfigError(`${path}: invalid configuration: server ${JSON.stringify(cluster.server)} is not a URL`);
  }
  if (server.protocol !== 'https:') throw new WebhookConfigError(`${path}: the webhook server must be reached over https, not ${JSON.stringify(cluster.server)}`);
  const file = (v: unknown): string | undefined => (typeof v === 'string' && v ? readFileSync(resolve(dir, v), 'utf8') : undefined);
  const data = (v: unknown): string | undefined => (typeof v === 'string' && v ? Buffer.from(v, 'base64').toString('utf8') : undefined);
  try {
    return {
      server,
      ca: data(cluster['certificate-authority-data']) ?? file(cluster['certificate-authority']),
      cert: data(user['client-certificate-data']) ?? file(user['client-certificate']),
      key: data(user['client-key-data']) ?? file(user['client-key']),
      token: typeof user.token === 'string' && user.token ? user.token : file(user.tokenFile)?.trim(),
      tlsServerName: typeof cluster['tls-server-name'] === 'string' && cluster['tls-server-name'] ? cluster['tls-server-name'] : undefined,
      insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
    };
  } catch (err) {
    throw new WebhookConfigError(`${path}: ${(err as Error).message}`);
  }
}

/**
 * What a webhook call needs from a connection: its URL, an agent that carries the CA, the client
 * certificate and key (kept alive between calls), and the bearer token's header.
 */
export function webhookTarget(c: WebhookConnection): WebhookTarget {
  const agent = new https.Agent({ keepAlive: true, ca: c.ca, cert: c.cert, key: c.key, servername: c.tlsServerName, rejectUnauthorized: !c.insecureSkipTLSVerify });
  const headers: Record<string, string> = c.token ? { Authorization: `Bearer ${c.token}` } : {};
  return { url: c.server, agent, headers: async () => headers };
}
