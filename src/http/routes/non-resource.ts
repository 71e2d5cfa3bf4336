// Paths that name no resource: health, metrics, version, discovery and OpenAPI. As in kube,
// /version, /api, /api/v1 and /apis/<group>/<version> are routed for GET only (go-restful web services
// there: another method is a 405), while health, metrics, the root, /apis, /apis/<group> and
// OpenAPI are plain handlers that answer any method (a HEAD gets the GET's headers, no body).

import type { HttpReply, HttpRequest } from '../transport/exchange.js';
import { internal, methodNotAllowed, notAcceptable, pathNotFound } from '../../apimachinery/status-error.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import {
  AGGREGATED_V2BETA1_CONTENT_TYPE,
  AGGREGATED_V2_CONTENT_TYPE,
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  discoveryEtag,
  coreAggregatedDiscovery,
  coreAPIResourceList,
  coreAPIVersions,
  type DiscoveryResource,
  negotiateDiscovery,
} from './discovery/discovery-documents.js';
import { header } from '../endpoints/endpoint.js';
import { DEFAULT_HEALTH_CHECKS, healthResponse, type HealthChecks, type HealthEndpoint } from './health.js';
import { parseAccept } from '../endpoints/negotiation.js';
import type { OpenAPIV2Documents } from './openapi/openapi-v2.js';
import { negotiateOpenAPIV2 } from './openapi/negotiate-v2.js';
import { buildOpenAPIV3, type OpenAPIDocument } from './openapi/openapi-v3.js';
import { writeBody, writeStatus } from '../endpoints/response-writer.js';

export const PUBLIC_PATHS = new Set(['/version', '/version/', '/healthz', '/healthz/', '/livez', '/livez/', '/readyz', '/readyz/']);

const isCoreV1 = (parts: string[]): boolean => parts.length === 2 && parts[0] === 'api' && parts[1] === 'v1';

/**
 * The address the client reached us at, as host:port (kube names its advertised address; this
 * is the one the client is known to reach). An IPv4 client on a dual-stack socket is plain IPv4.
 */
function serverAddressOf(req: HttpRequest): string {
  const socket = req.raw.socket;
  const host = (socket.localAddress ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  return `${host.includes(':') ? `[${host}]` : host}:${socket.localPort ?? 443}`;
}

/** kube's version.Info (apimachinery/pkg/version), served as /version in its field order; made by src/version.ts. */
export interface VersionInfo {
  major: string;
  minor: string;
  emulationMajor: string;
  emulationMinor: string;
  minCompatibilityMajor: string;
  minCompatibilityMinor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export interface NonResourceOptions {
  definitions: readonly ResourceDefinition[];
  /** Further resources discovery lists (the self-review kinds). */
  extraDiscovery: readonly DiscoveryResource[];
  version: VersionInfo;
  /** The /healthz, /livez and /readyz checks. */
  health?: HealthChecks;
  /** Hears each failing health check's reason (the response withholds it). */
  onHealthFailure?: (name: string, reason: string) => void;
  /** The /metrics exposition, when metrics are on. */
  metrics?: () => Promise<{ contentType: string; body: string }>;
}

const HEALTH_ENDPOINTS = new Set(['healthz', 'livez', 'readyz']);

export class NonResourceRoutes {
  // The OpenAPI documents are built on first request, not at start-up (where they cost about
  // a third of a second, most of it loading and running the protobuf encoder of v2).
  private openapiV3Docs?: ReturnType<typeof buildOpenAPIV3>;
  private openapiV2Docs?: Promise<OpenAPIV2Documents>;
  private readonly aggregated: Record<'v2' | 'v2beta1', { body: string; etag: string }>;
  private readonly coreAggregated: Record<'v2' | 'v2beta1', { body: string; etag: string }>;

  constructor(private readonly opts: NonResourceOptions) {
    const agg = (v: 'v2' | 'v2beta1') => {
      const body = `${JSON.stringify(aggregatedDiscovery([...opts.definitions, ...opts.extraDiscovery], v))}\n`;
      return { body, etag: discoveryEtag(body) };
    };
    this.aggregated = { v2: agg('v2'), v2beta1: agg('v2beta1') };
    const core = (v: 'v2' | 'v2beta1') => {
      const body = `${JSON.stringify(coreAggregatedDiscovery(opts.definitions, v))}\n`;
      return { body, etag: discoveryEtag(body) };
    };
    this.coreAggregated = { v2: core('v2'), v2beta1: core('v2beta1') };
  }

  /** Serves the path, or throws a 404 Status (the returned promise, if any, never rejects). */
  serve(req: HttpRequest, reply: HttpReply, path: string, query: URLSearchParams, pretty: boolean): void | Promise<void> {
    const parts = path.split('/').filter(Boolean);
    const json = (body: unknown) => writeBody(reply, 200, body, { format: { kind: 'json' }, pretty });
    const getOnly = path === '/version' || path === '/version/' || (parts[0] === 'api' && parts.length === 1) || isCoreV1(parts);
    if (getOnly && req.method !== 'GET') throw methodNotAllowed();
    if (path === '/version' || path === '/version/') return json(this.opts.version);
    if (HEALTH_ENDPOINTS.has(parts[0] ?? '')) return this.health(reply, parts[0] as HealthEndpoint, parts.slice(1).join('/'), query);
    if (parts[0] === 'metrics' && parts.length === 1 && this.opts.metrics) return this.metrics(reply, this.opts.metrics);
    if (parts.length === 0) return json({ paths: this.rootPaths() });
    if (parts[0] === 'api' && parts.length === 1) return this.api(req, reply, pretty);
    if (isCoreV1(parts)) return json(coreAPIResourceList(this.opts.definitions));
    if (parts[0] === 'apis') return this.apis(req, reply, parts, pretty);
    if (parts[0] === 'openapi') return this.openapi(req, reply, parts, query);
    throw pathNotFound();
  }

  private async health(reply: HttpReply, endpoint: HealthEndpoint, checkPath: string, query: URLSearchParams): Promise<void> {
    const answer = await healthResponse(this.opts.health ?? DEFAULT_HEALTH_CHECKS, endpoint, checkPath, query, this.opts.onHealthFailure);
    // Inside an async route a thrown Status would escape the caller's try: answer the 404 here.
    if (!answer) return writeStatus(reply, pathNotFound().status, { pretty: false });
    reply.code(answer.code).header('Content-Type', 'text/plain; charset=utf-8').header('X-Content-Type-Options', 'nosniff').send(Buffer.from(answer.body));
  }

  private async metrics(reply: HttpReply, render: NonNullable<NonResourceOptions['metrics']>): Promise<void> {
    try {
      const { contentType, body } = await render();
      reply.code(200).header('Content-Type', contentType).send(Buffer.from(body));
    } catch (err) {
      this.opts.onHealthFailure?.('metrics', err instanceof Error ? err.message : String(err));
      writeStatus(reply, internal('metrics could not be gathered; see the server log').status, { pretty: false });
    }
  }

  private rootPaths(): string[] {
    const named = this.opts.definitions.filter((d) => d.group);
    const gvs = [...new Set(named.map((d) => `/apis/${d.group}/${d.version}`))];
    const groups = [...new Set(named.map((d) => `/apis/${d.group}`))];
    const health = this.opts.health ?? DEFAULT_HEALTH_CHECKS;
    const checks = [...health.livez.map((c) => `/livez/${c.name}`), ...health.livez.map((c) => `/healthz/${c.name}`), ...health.readyz.map((c) => `/readyz/${c.name}`)];
    const metrics = this.opts.metrics ? ['/metrics'] : [];
    return ['/api', '/api/v1', '/apis', ...groups, ...gvs, '/healthz', '/livez', ...metrics, '/openapi/v2', '/openapi/v3', '/openapi/v3/', '/readyz', '/version', ...checks].sort();
  }

  private api(req: HttpRequest, reply: HttpReply, pretty: boolean): void | Promise<void> {
    const which = negotiateDiscovery(header(req, 'accept'));
    if (which === 'legacy') return writeBody(reply, 200, coreAPIVersions(serverAddressOf(req)), { format: { kind: 'json' }, pretty });
    const { body, etag } = this.coreAggregated[which];
    reply.header('Vary', 'Accept').header('ETag', etag);
    if (header(req, 'if-none-match') === etag) return void reply.code(304).send();
    reply.code(200).header('Content-Type', which === 'v2' ? AGGREGATED_V2_CONTENT_TYPE : AGGREGATED_V2BETA1_CONTENT_TYPE).send(Buffer.from(body));
  }

  private apis(req: HttpRequest, reply: HttpReply, parts: string[], pretty: boolean): void {
    const defs = [...this.opts.definitions, ...this.opts.extraDiscovery];
    const json = (body: object | undefined) => {
      if (!body) throw pathNotFound();
      writeBody(reply, 200, body, { format: { kind: 'json' }, pretty });
    };
    if (parts.length === 1) {
      const which = negotiateDiscovery(header(req, 'accept'));
      if (which === 'legacy') return json(apiGroupList(defs));
      const { body, etag } = this.aggregated[which];
      reply.header('Vary', 'Accept').header('ETag', etag);
      if (header(req, 'if-none-match') === etag) return void reply.code(304).send();
      return void reply.code(200).header('Content-Type', which === 'v2' ? AGGREGATED_V2_CONTENT_TYPE : AGGREGATED_V2BETA1_CONTENT_TYPE).send(Buffer.from(body));
    }
    if (parts.length === 2) return json(apiGroup(defs, parts[1]!));
    if (parts.length === 3) {
      const list = apiResourceList(defs, parts[1]!, parts[2]!);
      if (list && req.method !== 'GET') throw methodNotAllowed();
      return json(list);
    }
    throw pathNotFound();
  }

  private get openapiV3(): ReturnType<typeof buildOpenAPIV3> {
    this.openapiV3Docs ??= buildOpenAPIV3(this.opts.definitions);
    return this.openapiV3Docs;
  }

  private get openapiV2(): Promise<OpenAPIV2Documents> {
    this.openapiV2Docs ??= import('./openapi/openapi-v2.js').then(({ buildOpenAPIV2 }) => buildOpenAPIV2(this.opts.definitions, this.opts.version.gitVersion));
    return this.openapiV2Docs;
  }

  private openapi(req: HttpRequest, reply: HttpReply, parts: string[], query: URLSearchParams): void | Promise<void> {
    if (parts[1] === 'v2' && parts.length === 2) {
      const which = negotiateOpenAPIV2(header(req, 'accept'));
      return this.openapiV2.then(
        (docs) => this.sendDocument(req, reply, docs[which.encoding], query, undefined, which.contentType),
        (err: unknown) => {
          this.openapiV2Docs = undefined;
          this.opts.onHealthFailure?.('openapi', err instanceof Error ? err.message : String(err));
          writeStatus(reply, internal('the OpenAPI document could not be built; see the server log').status, { pretty: false });
        },
      );
    }
    if (parts[1] !== 'v3') throw pathNotFound();
    if (parts.length === 2) {
      return void reply.code(200).header('Content-Type', 'application/json').header('Cache-Control', 'no-cache, private').send(Buffer.from(`${JSON.stringify(this.openapiV3.index)}\n`));
    }
    const doc = this.openapiV3.groupVersions.get(parts.slice(2).join('/'));
    if (!doc) throw pathNotFound();
    this.sendDocument(req, reply, doc, query, parts.slice(2).join('/'));
  }

  /** Content-hash caching as kube: a matching ?hash= is immutable, a stale one redirects, none revalidates. */
  private sendDocument(req: HttpRequest, reply: HttpReply, doc: OpenAPIDocument, query: URLSearchParams, gv?: string, contentType = 'application/json'): void {
    const etag = `"${doc.hash}"`;
    const hash = query.get('hash');
    reply.header('ETag', etag).header('Vary', 'Accept');
    if (gv && hash && hash !== doc.hash) {
      return void reply.code(301).header('Location', `/openapi/v3/${gv}?hash=${doc.hash}`).send();
    }
    if (hash) reply.header('Cache-Control', 'public, immutable').header('Expires', new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString());
    else reply.header('Cache-Control', 'no-cache, private');
    if (header(req, 'if-none-match') === etag) return void reply.code(304).send();
    reply.code(200).header('Content-Type', contentType).send(doc.body);
  }
}

