// kube-apiserver's pair of metrics for a configuration file it reloads while serving
// (apiserver_<what>_config_controller_automatic_reloads_total and
// ..._automatic_reload_last_timestamp_seconds), by status and the server's identity hash. The
// authentication and the authorization configuration files each have one pair.

import { Counter, Gauge, type Registry } from 'prom-client';

/** Records one reload of the `what` configuration ('authentication' or 'authorization'). */
export function configReloadMetrics(registry: Registry, what: 'authentication' | 'authorization', apiserverIdHash: string): (status: 'success' | 'failure') => void {
  const labelNames = ['status', 'apiserver_id_hash'];
  const reloads = new Counter({
    name: `apiserver_${what}_config_controller_automatic_reloads_total`,
    help: `Total number of automatic reloads of ${what} configuration split by status and apiserver identity.`,
    labelNames,
    registers: [registry],
  });
  const lastReload = new Gauge({
    name: `apiserver_${what}_config_controller_automatic_reload_last_timestamp_seconds`,
    help: `Timestamp of the last automatic reload of ${what} configuration split by status and apiserver identity.`,
    labelNames,
    registers: [registry],
  });
  return (status) => {
    reloads.inc({ status, apiserver_id_hash: apiserverIdHash });
    lastReload.set({ status, apiserver_id_hash: apiserverIdHash }, Date.now() / 1000);
  };
}
