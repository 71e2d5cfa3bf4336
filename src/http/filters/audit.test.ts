import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStatusError, unauthorized } from '../../apimachinery/status-error.js';
import { METADATA_FOR_ALL } from '../../auth/audit/audit-policy.js';
import { AuditLog } from './audit-log.js';
import { auditFilter, auditInit, TIMED_OUT_ANNOTATION } from './audit.js';
import { timeoutFilter } from './timeout.js';
import { compose, filter } from './filter.js';
import { fakeExchange } from './test-state.js';

async function auditedEvents(run: (log: AuditLog) => Promise<void>): Promise<Record<string, any>[]> {
  const dir = mkdtempSync(join(tmpdir(), 'audit-filter-'));
  try {
    const log = new AuditLog(join(dir, 'audit.log'), METADATA_FOR_ALL);
    await run(log);
    await log.close();
    return readFileSync(join(dir, 'audit.log'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a request is audited at RequestReceived with its user, and at ResponseComplete when the response ends', async () => {
  const events = await auditedEvents(async (log) => {
    const x = fakeExchange({ user: { username: 'alice', groups: [] } });
    await compose([auditInit(log), auditFilter], async () => {})(x.state);
    x.state.reply.raw.statusCode = 201;
    x.state.reply.raw.emit('finish');
  });
  assert.deepEqual(events.map((e) => [e.stage, e.user.username, e.responseStatus?.code]), [
    ['RequestReceived', 'alice', undefined],
    ['ResponseComplete', 'alice', 201],
  ]);
});

test('a request refused before its identity is settled is still audited', async () => {
  const events = await auditedEvents(async (log) => {
    const x = fakeExchange();
    const refuse = filter({
      enter: () => {
        throw unauthorized();
      },
    });
    await assert.rejects(compose([auditInit(log), refuse, auditFilter], async () => assert.fail('must not run'))(x.state));
  });
  assert.deepEqual(events.map((e) => [e.stage, e.user.username]), [['RequestReceived', '']]);
});

test('without an audit log the filters do nothing', async () => {
  const x = fakeExchange();
  await compose([auditInit(undefined), auditFilter], async () => {})(x.state);
  assert.equal(x.state.audit, undefined);
});

test('a request answered 504 while its work went on: its trail ends when the work does, with the code the work ended with, annotated', async () => {
  const events = await auditedEvents(async (log) => {
    const x = fakeExchange({ user: { username: 'alice', groups: [] } });
    let finishWork!: () => void;
    const work = new Promise<void>((resolve) => (finishWork = resolve));
    await assert.rejects(
      compose([auditInit(log), auditFilter, timeoutFilter(20)], async () => {
        await work;
        x.state.reply.raw.statusCode = 201;
      })(x.state),
      (e: unknown) => isStatusError(e) && e.status.code === 504,
    );
    assert.ok(x.state.audit!.abandonedWork, 'handed to the trail');
    // The server writes the 504: the trail waits for the work.
    x.state.reply.raw.statusCode = 504;
    x.state.reply.raw.emit('finish');
    await new Promise((resolve) => setImmediate(resolve));
    finishWork();
    await x.state.abandonedWork;
    await new Promise((resolve) => setImmediate(resolve));
  });
  assert.equal(TIMED_OUT_ANNOTATION, 'apiserver.platform.io/request-timed-out');
  assert.deepEqual(events.map((e) => [e.stage, e.responseStatus?.code, e.annotations?.['apiserver.platform.io/request-timed-out']]), [
    ['RequestReceived', undefined, undefined],
    ['ResponseComplete', 201, 'the client was answered 504 before the request\'s work ended'],
  ]);
});

test('a response cut off after it began completes the trail once; one gone before any header completes nothing', async () => {
  const events = await auditedEvents(async (log) => {
    const begun = fakeExchange({ user: { username: 'begun', groups: [] } });
    await compose([auditInit(log), auditFilter], async () => {})(begun.state);
    Object.assign(begun.state.reply.raw, { headersSent: true });
    begun.state.reply.raw.emit('close');
    begun.state.reply.raw.emit('finish');
    const gone = fakeExchange({ user: { username: 'gone', groups: [] } });
    await compose([auditInit(log), auditFilter], async () => {})(gone.state);
    gone.state.reply.raw.emit('close');
  });
  assert.deepEqual(events.map((e) => [e.stage, e.user.username]), [
    ['RequestReceived', 'begun'],
    ['ResponseComplete', 'begun'],
    ['RequestReceived', 'gone'],
  ]);
});

test('a request refused after its identity was settled is identified once', async () => {
  const events = await auditedEvents(async (log) => {
    const x = fakeExchange({ user: { username: 'alice', groups: [] } });
    const refuse = filter({
      enter: () => {
        throw unauthorized();
      },
    });
    await assert.rejects(compose([auditInit(log), auditFilter, refuse], async () => assert.fail('must not run'))(x.state));
  });
  assert.deepEqual(events.map((e) => e.stage), ['RequestReceived']);
});
