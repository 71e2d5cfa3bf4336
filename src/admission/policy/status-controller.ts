// kube-controller-manager's "validatingadmissionpolicy-status-controller", in process: each
// ValidatingAdmissionPolicy whose generation is ahead of status.observedGeneration is
// type-checked and its status applied (server-side apply, forced, as the controller's field
// manager): observedGeneration and typeChecking.expressionWarnings. Every replica may run it:
// the apply carries the resourceVersion the check was made on, so a stale one is a 409 and a retry.

import { internalContext, type Logger, type RequestContext } from '../../apimachinery/request-context.js';
import { isStatusError } from '../../apimachinery/status-error.js';
import type { Clock } from '../../controllers/clock.js';
import { Informer } from '../../controllers/informer.js';
import { runWorker } from '../../controllers/worker.js';
import { WorkQueue } from '../../controllers/work-queue.js';
import type { RestStorage } from '../../registry/rest-storage.js';
import { API_VERSION, type ValidatingAdmissionPolicy } from '../../resources/admissionregistration/types.js';
import { typeCheckPolicy, type DefinitionLookup } from './type-checker.js';

export const POLICY_STATUS_CONTROLLER = 'validatingadmissionpolicy-status-controller';
const CONTROLLER_USER = { username: 'system:serviceaccount:kube-system:validatingadmissionpolicy-status-controller', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated', 'system:masters'] };

export interface PolicyStatusControllerOptions {
  main: RestStorage<ValidatingAdmissionPolicy>;
  status: RestStorage<ValidatingAdmissionPolicy>;
  definitions: DefinitionLookup;
  clock: Clock;
  logger: Logger;
}

export class PolicyStatusController {
  private readonly informer: Informer<ValidatingAdmissionPolicy>;
  private readonly queue: WorkQueue;
  private readonly ctx: RequestContext;
  private worker: Promise<void> | undefined;

  constructor(private readonly o: PolicyStatusControllerOptions) {
    this.queue = new WorkQueue(o.clock);
    this.ctx = internalContext(CONTROLLER_USER, o.logger, { resource: 'validatingadmissionpolicies' });
    const enqueue = (p: ValidatingAdmissionPolicy): void => this.queue.add(p.metadata.name!);
    this.informer = new Informer({ source: o.main, user: CONTROLLER_USER, clock: o.clock, logger: o.logger, handlers: { onAdd: enqueue, onUpdate: (_old, p) => enqueue(p) } });
  }

  async start(): Promise<void> {
    this.informer.start();
    await this.informer.synced;
    this.worker ??= runWorker(this.queue, (key) => this.sync(key), this.o.logger);
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.informer.stop();
    await this.worker;
  }

  private async sync(name: string): Promise<void> {
    const p = this.informer.get(name);
    if (!p) return;
    const generation = p.metadata.generation ?? 0;
    if (generation <= (p.status?.observedGeneration ?? 0)) return;
    const warnings = typeCheckPolicy(p, this.o.definitions);
    const typeChecking = warnings.length ? { expressionWarnings: warnings } : {};
    const config = {
      apiVersion: API_VERSION,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name, resourceVersion: p.metadata.resourceVersion },
      status: { observedGeneration: generation, typeChecking },
    };
    try {
      await this.o.status.apply(this.ctx, name, config, { fieldManager: POLICY_STATUS_CONTROLLER, force: true });
    } catch (err) {
      // Gone meanwhile: nothing to report on. A conflict is retried on the informer's next copy.
      if (isStatusError(err) && err.code === 404) return;
      throw err;
    }
  }
}
