// An authorization webhook's connection: from its kubeconfig file, read by the one webhook
// kubeconfig reader (auth/webhook/webhook-kubeconfig.ts, which the token webhook uses too), or,
// for a structured authorizer's `InClusterConfig`, from the pod's service-account environment
// through @kubernetes/client-node's KubeConfig (imported only then: it is large, and it re-reads
// the rotating service-account token).

import type http from 'node:http';
import type https from 'node:https';
import { loadWebhookKubeconfig, webhookTarget } from '../auth/webhook/webhook-kubeconfig.js';
import type { WebhookTarget } from '../auth/webhook/webhook-transport.js';

export async function loadWebhookTarget(path: string | { inCluster: true }): Promise<WebhookTarget> {
  if (typeof path === 'string') {
    try {
      return webhookTarget(loadWebhookKubeconfig(path));
    } catch (err) {
      throw new Error(`invalid webhook kubeconfig ${(err as Error).message}`);
    }
  }
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  if (!process.env.KUBERNETES_SERVICE_HOST) throw new Error('webhook connectionInfo InClusterConfig: not running in a cluster (KUBERNETES_SERVICE_HOST is not set)');
  kc.loadFromCluster();
  return target(kc, 'the in-cluster configuration');
}

async function target(kc: import('@kubernetes/client-node').KubeConfig, path: string): Promise<WebhookTarget> {
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) throw new Error(`invalid webhook kubeconfig ${path}: no current context with a cluster server`);
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch {
    throw new Error(`invalid webhook kubeconfig ${path}: server ${JSON.stringify(cluster.server)} is not a URL`);
  }
  const options: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(options);
  // The Authorization header is asked for on each call: client-node re-reads a rotating
  // in-cluster token file when it has expired.
  const withAuth = kc as unknown as { applyAuthorizationHeader(o: https.RequestOptions): Promise<void> };
  const headers = async (): Promise<Record<string, string>> => {
    const o: https.RequestOptions = {};
    await withAuth.applyAuthorizationHeader(o);
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(o.headers ?? {})) if (typeof v === 'string') out[k] = v;
    return out;
  };
  // The agent client-node made carries the CA, client certificate and key; keep-alive between calls.
  const agent = options.agent as http.Agent;
  (agent as unknown as { keepAlive: boolean }).keepAlive = true;
  return { url, agent, headers };
}
