// How `snapshot status` and `snapshot ls` print: aligned columns (as kubectl and etcdutl's
// table), or JSON for scripts (`-o json`, as `etcdutl snapshot status -w json`).

import type { ListedSnapshot } from '../../storage/sqlite/snapshot-files.js';
import type { SnapshotStatus } from '../../storage/sqlite/snapshot-status.js';

export type OutputFormat = 'table' | 'json';

/** Rows of cells as aligned columns, two spaces apart. */
export function columns(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}

/** 1536 → "1.5 KiB" (the exact byte count is in the JSON output). */
export function humanSize(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${bytes} B` : `${v.toFixed(1)} ${units[u]}`;
}

/** What the SHA256 line and field say: the checked sum, or why there is none. */
const checksumText = (s: SnapshotStatus): string => (s.checksum === 'ok' ? `${s.sha256} (checked)` : s.checksum === 'none' ? `none (format ${s.formatVersion} has no checksum)` : 'not checked (--skip-hash-check)');

export function renderStatus(s: SnapshotStatus, format: OutputFormat): string {
  if (format === 'json') {
    const { file, revision, compactedRevision, totalObjects, sizeBytes, freePages, freeBytes, formatVersion, schemaVersion, createdAt, integrity, checksum, resources } = s;
    return `${JSON.stringify({
      file,
      revision,
      compactedRevision,
      totalObjects,
      totalSize: sizeBytes,
      freePages,
      freeSize: freeBytes,
      formatVersion,
      schemaVersion,
      createdAt,
      integrity,
      checksum,
      sha256: s.sha256 ?? null,
      contentSha256: s.contentSha256 ?? null,
      resources,
    })}\n`;
  }
  const head = columns([
    ['REVISION', 'COMPACTED', 'OBJECTS', 'SIZE', 'FREE', 'FORMAT', 'CREATED', 'INTEGRITY'],
    [String(s.revision), String(s.compactedRevision), String(s.totalObjects), humanSize(s.sizeBytes), humanSize(s.freeBytes), String(s.formatVersion), s.createdAt, s.integrity],
  ]);
  const sums = columns([
    ['SHA256', checksumText(s)],
    ['CONTENT SHA256', s.contentSha256 ?? 'none (not recorded before format 2)'],
  ]);
  const perResource = columns([['RESOURCE', 'OBJECTS'], ...s.resources.map((r) => [r.resource, String(r.objects)])]);
  return `${head}\n${sums}\n${perResource}`;
}

export function renderList(list: readonly ListedSnapshot[], format: OutputFormat): string {
  if (format === 'json') return `${JSON.stringify(list.map(({ name, file, revision, sizeBytes, createdAt }) => ({ name, file, revision, size: sizeBytes, createdAt })))}\n`;
  return columns([['NAME', 'REVISION', 'SIZE', 'CREATED'], ...list.map((s) => [s.name, String(s.revision), humanSize(s.sizeBytes), s.createdAt])]);
}
