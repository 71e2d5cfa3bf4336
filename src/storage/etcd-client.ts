// The connection to etcd: one etcd3 client (gRPC, all members, TLS when asked) shared by the
// store, its watches and the compactor. Unary calls carry a deadline so a request never waits
// longer than the request timeout for an etcd that lost quorum; watch streams carry none.

import { readFileSync } from 'node:fs';
import { handleWhen, noop, retry } from 'cockatiel';
import { Etcd3, GRPCUnavailableError, type IOptions } from 'etcd3';

export interface EtcdConnectionOptions {
  /** Client URLs (http://host:port or https://host:port), as --etcd-servers lists them. */
  servers: readonly string[];
  /** PEM files for TLS to etcd (--etcd-cafile, --etcd-certfile, --etcd-keyfile). */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** Longest one unary call may take (default 10 s). */
  requestTimeoutMs?: number;
}

/** Largest message either way: kube's 3 MiB objects, with the previous value beside them in watch events. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The call never reached a member: connection refused, reset, no route. */
const unreachable = (err: Error): boolean => err instanceof GRPCUnavailableError && !/etcdserver:/.test(err.message);

export function connectEtcd(opts: EtcdConnectionOptions): Etcd3 {
  if (opts.servers.length === 0) throw new Error('no etcd servers given');
  const timeout = opts.requestTimeoutMs ?? 10_000;
  const tls = opts.caFile !== undefined || opts.certFile !== undefined || opts.servers.some((s) => s.startsWith('https://'));
  const options: IOptions = {
    hosts: [...opts.servers],
    grpcOptions: {
      'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
      'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
      // Notice a silently dead member (a partition, a killed VM) on open watch streams too.
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.keepalive_permit_without_calls': 1,
    },
    dialTimeout: Math.min(timeout, 5000),
    faultHandling: {
      // No per-member circuit breaker: a member that failed a few calls (say, a health probe
      // while the cluster had no quorum) must not be skipped once it could answer again.
      host: () => noop,
      // A member that cannot be reached (UNAVAILABLE) is passed over for the next one, each
      // member at most once per call; a member that was reached and timed out is not retried,
      // so a write never waits longer than one deadline.
      // (etcd answers "etcdserver: request timed out" with the same UNAVAILABLE code: that one
      // came from a member that was reached.)
      global: retry(handleWhen(unreachable), { maxAttempts: opts.servers.length - 1 }),
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
