// --service-cluster-ip-range as kube-apiserver 1.33 reads it: one CIDR, or two of different
// families comma-separated (the first is the primary family), each parsed sloppily and reduced
// to its network (10.0.0.1/24 means 10.0.0.0/24), at most 2^20 addresses each (1.33 still
// dual-writes the old bitmap allocator). Absent: kube's default 10.0.0.0/24.

import { formatIP, maskedNetwork, parseCIDRSloppy } from '../resources/servicecidrs/cidr.js';

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
const MAX_CIDR_BITS = 20;

/** The canonical CIDRs, primary first; throws an Error with kube's message when invalid. */
export function parseServiceClusterIPRange(text: string): string[] {
  const entries = text === '' ? [DEFAULT_SERVICE_CLUSTER_IP_RANGE] : text.split(',');
  if (entries.length > 2) throw new Error('--service-cluster-ip-range must not contain more than two entries');
  const parsed = entries.map((entry, i) => {
    const c = parseCIDRSloppy(entry.trim());
    if (!c) throw new Error(i === 0 ? 'service-cluster-ip-range[0] is not a valid cidr' : 'service-cluster-ip-range[1] is not an ip net');
    return c;
  });
  if (parsed.length === 2 && parsed[0]!.family === parsed[1]!.family) {
    throw new Error('--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family');
  }
  return parsed.map((c, i) => {
    const bits = c.family === 4 ? 32 : 128;
    if (bits - c.prefix > MAX_CIDR_BITS) {
      const flag = i === 0 ? '--service-cluster-ip-range' : '--service-cluster-ip-range[1]';
      throw new Error(`specified ${flag} is too large; for ${bits}-bit addresses, the mask must be >= ${bits - MAX_CIDR_BITS}`);
    }
    return `${formatIP(maskedNetwork(c))}/${c.prefix}`;
  });
}

/** kube-controller-manager's --controllers: '*' is every controller, 'name' adds one, '-name' removes one. */
export function resolveControllers(spec: string, known: readonly string[]): Set<string> {
  const items = spec.split(',').map((s) => s.trim()).filter(Boolean);
  const enabled = new Set<string>();
  for (const item of items) {
    const name = item.startsWith('-') ? item.slice(1) : item;
    if (name !== '*' && !known.includes(name)) throw new Error(`--controllers: unknown controller ${JSON.stringify(name)} (known: ${known.join(', ')})`);
  }
  if (items.includes('*')) known.forEach((n) => enabled.add(n));
  for (const item of items) if (item !== '*' && !item.startsWith('-')) enabled.add(item);
  for (const item of items) if (item.startsWith('-')) enabled.delete(item.slice(1));
  return enabled;
}
