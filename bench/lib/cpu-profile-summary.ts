// What a server's CPU went to during one load: a V8 CPU profile (node --cpu-prof) read back and
// summed, so a bench can print, beside a target it misses, what stands under it. Samples are
// counted only inside a window (the load, not the start-up before it or the stop after it).
// Self time goes to the leaf frame's group (a package, a Node module, a folder of ours, the
// garbage collector); inclusive shares count a sample once for every group on its stack.

import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Busy (non-idle) sampled milliseconds in the window. */
  busyMs: number;
  /** Share of busy samples by the leaf's group, largest first. */
  self: Array<[string, number]>;
  /** Share of busy samples with a frame of each group anywhere on the stack. */
  inclusive: Array<[string, number]>;
}

/** The group a frame belongs to: a package, a Node module, one of our folders, or V8 itself. */
export function frameGroup(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : `native ${functionName || '(anonymous)'}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const ours = /\/dist\/(src\/[^/]+(?:\/[^/.]+(?=\/))?)/.exec(url);
  if (ours) return ours[1]!;
  if (url.startsWith('node:')) {
    const m = /^node:(?:internal\/)?(?:deps\/)?_?([a-z0-9]+)/.exec(url);
    return `node:${m?.[1] ?? url.slice(5)}`;
  }
  return url;
}

export function summarizeCpuProfile(path: string, window: { fromMs: number; toMs: number }, inclusiveGroups: readonly string[]): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const ms = at / 1000;
    if (ms < window.fromMs || ms > window.toMs) continue;
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  }
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    busy += us;
    const group = frameGroup(node.callFrame.url, node.callFrame.functionName);
    self.set(group, (self.get(group) ?? 0) + us);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)!.callFrame;
      for (const g of inclusiveGroups) if (!seen.has(g) && frameGroup(frame.url, frame.functionName).startsWith(g)) seen.add(g);
    }
    for (const g of seen) inclusive.set(g, (inclusive.get(g) ?? 0) + us);
  }
  const shares = (m: Map<string, number>) => [...m].map(([k, v]) => [k, busy ? v / busy : 0] as [string, number]).sort((a, b) => b[1] - a[1]);
  return { busyMs: busy / 1000, self: shares(self), inclusive: inclusiveGroups.map((g) => [g, busy ? (inclusive.get(g) ?? 0) / busy : 0]) };
}

/** "38% @grpc/grpc-js, 12% native writev, …" for the first `top` groups. */
export const formatShares = (shares: Array<[string, number]>, top = 12): string =>
  shares.slice(0, top).map(([g, s]) => `${(s * 100).toFixed(1)}% ${g}`).join(', ');
