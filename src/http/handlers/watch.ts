// GET <collection>?watch=true: a chunked stream of {"type","object"} lines, one per event,
// flushed per event. Errors before the stream starts are ordinary Status responses; later ones
// are an ERROR event, then the stream ends. Bookmarks only when asked for.

import type { KubeObject } from '../../apimachinery/object-meta.js';
import { internal, isStatusError, notAcceptable } from '../../apimachinery/status-error.js';
import { buildTable, parseIncludeObject, type TableColumnSource } from '../../apimachinery/table.js';
import { apiVersionOf } from '../../registry/resource-definition.js';
import type { WatchQuery } from '../../registry/rest-storage.js';
import { header, type HandlerInput } from '../endpoint.js';
import { negotiateResponse } from '../negotiation.js';
import { listQuery } from '../query-options.js';

/** Often enough to keep clients with a 30 s inactivity timeout (client-node) alive. */
const BOOKMARK_INTERVAL_MS = 15_000;
/** JSON lines per shared event object and type: serialized once for every watcher of the event. */
const encodedLines = new WeakMap<object, Map<string, string>>();

function jsonLine(type: string, obj: KubeObject): string {
  let byType = encodedLines.get(obj);
  if (!byType) encodedLines.set(obj, (byType = new Map()));
  let line = byType.get(type);
  if (line === undefined) byType.set(type, (line = `${JSON.stringify({ type, object: obj })}\n`));
  return line;
}

/** Without timeoutSeconds a watch lives 30–60 minutes, like kube-apiserver's. */
const MIN_WATCH_SECONDS = 1800;

const flag = (v: string | null): boolean | undefined => (v === null ? undefined : v === 'true' || v === '1');

function watchQuery(query: URLSearchParams): WatchQuery {
  const q: WatchQuery = listQuery(query);
  q.allowWatchBookmarks = flag(query.get('allowWatchBookmarks'));
  q.sendInitialEvents = flag(query.get('sendInitialEvents'));
  return q;
}

export async function handleWatch(input: HandlerInput): Promise<void> {
  const format = negotiateResponse(header(input.req, 'accept'), true);
  if (format.kind === 'yaml') throw notAcceptable('only the following media types are accepted for watch: application/json');
  const query = watchQuery(input.query);
  const timeoutSeconds = Number(input.query.get('timeoutSeconds') ?? 0);
  const stop = new AbortController();
  const watch = await input.storage.watch(input.ctx, query, stop.signal);

  const def = input.definition;
  const res = input.reply.raw;
  input.reply.hijack();
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    ...(input.req.raw.httpVersionMajor === 1 ? { 'Transfer-Encoding': 'chunked' } : {}),
    'Audit-Id': input.ctx.requestId,
  });
  // Send the headers now: a watch with nothing to report yet must still answer 200 at once.
  res.flushHeaders();
  const lifetime = timeoutSeconds > 0 ? timeoutSeconds * 1000 : (MIN_WATCH_SECONDS + Math.random() * MIN_WATCH_SECONDS) * 1000;
  const end = (): void => stop.abort();
  const timer = setTimeout(end, lifetime);
  const bookmarks = query.allowWatchBookmarks ? setInterval(() => watch.requestBookmark(), BOOKMARK_INTERVAL_MS) : undefined;
  input.ctx.signal.addEventListener('abort', end, { once: true });
  input.serverClosing.addEventListener('abort', end, { once: true });

  let tableColumnsSent = false;
  const encode = (type: string, obj: KubeObject): string => {
    if (format.kind !== 'table') return jsonLine(type, obj);
    const table = buildTable(def.table as readonly TableColumnSource<KubeObject>[], [obj], {
      includeObject: parseIncludeObject(input.query.get('includeObject') ?? undefined),
      now: new Date(),
      apiVersion: format.apiVersion,
      listMeta: { resourceVersion: obj.metadata.resourceVersion ?? '' },
      omitColumnDefinitions: tableColumnsSent,
    });
    tableColumnsSent = true;
    return `${JSON.stringify({ type, object: table })}\n`;
  };
  try {
    for await (const ev of watch) {
      if (ev.type === 'BOOKMARK') {
        if (!query.allowWatchBookmarks) continue;
        const metadata: Record<string, unknown> = { resourceVersion: ev.resourceVersion };
        if (ev.initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
        res.write(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: def.kind, apiVersion: apiVersionOf(def), metadata } })}\n`);
      } else {
        res.write(encode(ev.type, ev.object));
      }
      // A client that does not read: stop pulling events, so that the watch's own bounded
      // queue fills and ends it, instead of the socket buffering without bound.
      if (res.writableNeedDrain && !(await drained(res, stop.signal))) {
        // Not reading at all: end the watch (the client re-lists), as kube-apiserver ends
        // watchers that cannot keep up.
        res.destroy();
        break;
      }
    }
  } catch (err) {
    const status = isStatusError(err) ? err.status : internal('watch failed').status;
    if (!isStatusError(err)) input.ctx.logger.error({ err }, 'watch failed');
    if (!res.writableEnded) res.write(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
  } finally {
    clearTimeout(timer);
    if (bookmarks) clearInterval(bookmarks);
    input.serverClosing.removeEventListener('abort', end);
    if (!res.writableEnded) res.end();
  }
}

/** A watch whose client takes nothing for this long is ended. */
const STUCK_CLIENT_MS = 60_000;

/** Resolves true when the response can take more, closes, or the watch stops; false when the client is stuck. */
interface Drainable {
  readonly destroyed: boolean;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

function drained(socket: Drainable, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted || socket.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const finish = (ok: boolean): void => {
      clearTimeout(timer);
      socket.off('drain', done);
      socket.off('close', done);
      signal.removeEventListener('abort', done);
      resolve(ok);
    };
    const done = (): void => finish(true);
    const timer = setTimeout(() => finish(false), STUCK_CLIENT_MS);
    socket.once('drain', done);
    socket.once('close', done);
    signal.addEventListener('abort', done, { once: true });
  });
}
