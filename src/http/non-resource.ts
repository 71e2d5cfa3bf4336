// Paths that name no resource: health, version, discovery and OpenAPI.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { notAcceptable, pathNotFound } from '../apimachinery/status-error.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import {
  AGGREGATED_V2BETA1_CONTENT_TYPE,
  AGGREGATED_V2_CONTENT_TYPE,
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  discoveryEtag,
  emptyAggregatedDiscovery,
  type DiscoveryResource,
  negotiateDiscovery,
} from './discovery/discovery-documents.js';
import { header } from './endpoint.js';
import { parseAccept } from './negotiation.js';
import { buildOpenAPIV2, type OpenAPIV2Documents } from './openapi/openapi-v2.js';
import { negotiateOpenAPIV2 } from './openapi/negotiate-v2.js';
import { buildOpenAPIV3, type OpenAPIDocument } from './openapi/openapi-v3.js';
import { writeBody } from './response-writer.js';

export const PUBLIC_PATHS = new Set(['/version', '/version/', '/healthz', '/healthz/', '/livez', '/livez/', '/readyz', '/readyz/']);

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
}

export interface NonResourceOptions {
  definitions: readonly ResourceDefinition[];
  /** Further resources discovery lists (the self-review kinds). */
  extraDiscovery: readonly DiscoveryResource[];
  version: VersionInfo;
  /** Readiness problems (empty when ready), e.g. an unusable authorization policy file. */
  readinessProblems: () => string[];
}

export class NonResourceRoutes {
  private readonly openapiV3;
  private readonly openapiV2: OpenAPIV2Documents;
  private readonly aggregated: Record<'v2' | 'v2beta1', { body: string; etag: string }>;

  constructor(private readonly opts: NonResourceOptions) {
    this.openapiV3 = buildOpenAPIV3(opts.definitions);
    this.openapiV2 = buildOpenAPIV2(opts.definitions, opts.version.gitVersion);
    const agg = (v: 'v2' | 'v2beta1') => {
      const body = `${JSON.stringify(aggregatedDiscovery([...opts.definitions, ...opts.extraDiscovery], v))}\n`;
      return { body, etag: discoveryEtag(body) };
    };
    this.aggregated = { v2: agg('v2'), v2beta1: agg('v2beta1') };
  }

  /** Serves the path, or throws a 404 Status. */
  serve(req: FastifyRequest, reply: FastifyReply, path: string, query: URLSearchParams, pretty: boolean): void {
    const parts = path.split('/').filter(Boolean);
    const json = (body: unknown) => writeBody(reply, 200, body, { format: { kind: 'json' }, pretty });
    if (path === '/version' || path === '/version/') return json(this.versionInfo());
    if (['healthz', 'livez', 'readyz'].includes(parts[0] ?? '') && parts.length <= 2) return this.health(reply, parts, query);
    if (parts.length === 0) return json({ paths: this.rootPaths() });
    if (parts[0] === 'api' && parts.length === 1) return this.api(req, reply);
    if (parts[0] === 'apis') return this.apis(req, reply, parts, pretty);
    if (parts[0] === 'openapi') return this.openapi(req, reply, parts, query);
    throw pathNotFound();
  }

  private versionInfo(): object {
    return {
      major: this.opts.version.major,
      minor: this.opts.version.minor,
      gitVersion: this.opts.version.gitVersion,
      gitCommit: '',
      gitTreeState: 'clean',
      buildDate: '1970-01-01T00:00:00Z',
      goVersion: `node${process.versions.node}`,
      compiler: 'tsc',
      platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
    };
  }

  private health(reply: FastifyReply, parts: string[], query: URLSearchParams): void {
    const problems = parts[0] === 'readyz' ? this.opts.readinessProblems() : [];
    const checks = ['ping', 'log', 'storage'];
    if (parts[1] && !checks.includes(parts[1])) throw pathNotFound();
    const verbose = query.has('verbose');
    let text: string;
    if (verbose) {
      const lines = checks.map((c) => `[+]${c} ok`);
      for (const p of problems) lines.push(`[-]${p}`);
      lines.push(problems.length ? `${parts[0]} check failed` : `${parts[0]} check passed`);
      text = `${lines.join('\n')}\n`;
    } else {
      text = problems.length ? `[-]${problems.join('\n[-]')}\n${parts[0]} check failed\n` : 'ok';
    }
    reply.code(problems.length ? 500 : 200).header('Content-Type', 'text/plain; charset=utf-8').header('X-Content-Type-Options', 'nosniff').send(Buffer.from(text));
  }

  private rootPaths(): string[] {
    const gvs = [...new Set(this.opts.definitions.map((d) => `/apis/${d.group}/${d.version}`))];
    const groups = [...new Set(this.opts.definitions.map((d) => `/apis/${d.group}`))];
    return ['/api', '/apis', ...groups, ...gvs, '/healthz', '/livez', '/openapi/v2', '/openapi/v3', '/openapi/v3/', '/readyz', '/version'].sort();
  }

  private api(req: FastifyRequest, reply: FastifyReply): void {
    const which = negotiateDiscovery(header(req, 'accept'));
    if (which === 'legacy') throw pathNotFound();
    const body = `${JSON.stringify(emptyAggregatedDiscovery(which))}\n`;
    reply.code(200).header('Content-Type', which === 'v2' ? AGGREGATED_V2_CONTENT_TYPE : AGGREGATED_V2BETA1_CONTENT_TYPE).header('Vary', 'Accept').send(Buffer.from(body));
  }

  private apis(req: FastifyRequest, reply: FastifyReply, parts: string[], pretty: boolean): void {
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
    if (parts.length === 3) return json(apiResourceList(defs, parts[1]!, parts[2]!));
    throw pathNotFound();
  }

  private openapi(req: FastifyRequest, reply: FastifyReply, parts: string[], query: URLSearchParams): void {
    if (parts[1] === 'v2' && parts.length === 2) {
      const which = negotiateOpenAPIV2(header(req, 'accept'));
      return this.sendDocument(req, reply, this.openapiV2[which.encoding], query, undefined, which.contentType);
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
  private sendDocument(req: FastifyRequest, reply: FastifyReply, doc: OpenAPIDocument, query: URLSearchParams, gv?: string, contentType = 'application/json'): void {
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
