// The connection to etcd: one etcd3 client (gRPC, all members, TLS when asked) shared by the
// store, its watches and the compactor. Unary calls carry a deadline so a request never waits
// longer than the request timeout for an etcd that lost quorum; watch streams carry none.
// Every call is retried on another member only when it never left this process (no connection
// to send it on), as clientv3 does for mutating calls; reads retry more (etcd-store.ts), since
// a read sent twice does no harm, and writes never (etcd-write-outcome.ts).

import { readFileSync } from 'node:fs';
import { handleWhen, noop, retry } from 'cockatiel';
import { Etcd3, GRPCUnavailableError, type IOptions } from 'etcd3';
import { neverSent } from './etcd-write-outcome.js';

export interface EtcdConnectionOptions {
  /** Client URLs (http://host:port or https://host:port), as --etcd-servers lists them. */
  servers: readonly string[];
  /** PEM files for TLS to etcd (--etcd-cafile, --etcd-certfile, --etcd-keyfile). */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** Longest one unary call may take (default 10 s). */
  requestTimeoutMs?: number;
  /**
   * Largest message accepted from etcd. Default 2 GiB - 1, clientv3's default (which
   * kube-apiserver keeps): a list page or a watch response is bounded by paging
   * (paged-list.ts), not by a cap that would make a large store unreadable. Tests lower it
   * to prove the paging on a small store.
   */
  maxReceiveBytes?: number;
}

/** Largest message sent: kube's 3 MiB objects with room to spare (etcd's --max-request-bytes decides). */
const MAX_SEND_BYTES = 64 * 1024 * 1024;
const MAX_RECEIVE_BYTES = 2 ** 31 - 1;

/** A transport failure (connection refused, reset, dropped), not an answer from etcd. */
export const transportFailure = (err: unknown): boolean => err instanceof GRPCUnavailableError && !/etcdserver:/.test(err.message);

export function connectEtcd(opts: EtcdConnectionOptions): Etcd3 {
  if (opts.servers.length === 0) throw new Error('no etcd servers given');
  const timeout = opts.requestTimeoutMs ?? 10_000;
  const tls = opts.caFile !== undefined || opts.certFile !== undefined || opts.servers.some((s) => s.startsWith('https://'));
  const options: IOptions = {
    hosts: [...opts.servers],
    grpcOptions: {
      'grpc.max_receive_message_length': opts.maxReceiveBytes ?? MAX_RECEIVE_BYTES,
      'grpc.max_send_message_length': MAX_SEND_BYTES,
      // Notice a silently dead member (a partition, a killed VM) on open watch streams too.
      // Only while calls are open: etcd's default policy (PermitWithoutStream false) answers
      // pings on an idle connection with GOAWAY "too many pings", which cut the connection
      // under whatever call came next (a write whose outcome would then be unknown).
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.keepalive_permit_without_calls': 0,
    },
    dialTimeout: Math.min(timeout, 5000),
    faultHandling: {
      // No per-member circuit breaker: a member that failed a few calls (say, a health probe
      // while the cluster had no quorum) must not be skipped once it could answer again.
      host: () => noop,
      // A call with no connection to go on is passed to the next member, each member at most
      // once per call. A call that was sent is not retried here: a write may have been applied
      // (etcd-write-outcome.ts decides), and a member that timed out would only time out again.
      global: retry(handleWhen(neverSent), { maxAttempts: opts.servers.length - 1 }),
    },
    defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + timeout }),
  };
  if (tls) {
    options.credentials = {
      rootCertificate: opts.caFile ? readFileSync(opts.caFile) : (undefined as unknown as Buffer),
      privateKey: opts.keyFile ? readFileSync(opts.keyFile) : undefined,
      certChain: opts.certFile ? readFileSync(opts.certFile) : undefined,
    };
  }
  return new Etcd3(options);
}
