import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { partsA, randomBytesOf, signedIn, upload } from '../support/storage.ts';

/**
 * A dependency down answers 503 (or the group's 502), never 500, and the service recovers with
 * nothing lost: DynamoDB Local killed with SIGKILL (the runtime's watcher starts it again on its
 * data), the local S3 stopped for a few seconds.
 */
let rt: TestRuntime;
let alice: HttpClient & { userId: string };

beforeAll(async () => {
  // A DynamoDB Local of its own (not the run's shared one): this file kills it.
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20' }, undefined, { ownDynamo: true });
  alice = await signedIn(rt);
});
afterAll(async () => {
  await rt?.stop();
  await (await import('#lib/zk/groth16.ts')).terminateCurves();
});
beforeEach(() => advanceClock(61_000));

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('DynamoDB Local dies', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After while it is down, then recovers with every record', async () => {
    const report = await alice.post('/api/bug-reports', { title: 'kept across a crash', description: 'x' });
    expect(report.status).toBe(201);
    const dynamo = rt.services.dynamo!;
    const before = dynamo.restarts();
    process.kill(dynamo.pid()!, 'SIGKILL');

    const down = await alice.get('/api/auth/session');
    expect(down.status).toBe(503);
    expect(down.json).toEqual({ error: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);

    const back = await until(
      () => alice.get('/api/bug-reports'),
      (r) => r.status === 200,
    );
    expect(back.status).toBe(200);
    expect(dynamo.restarts()).toBe(before + 1);
    const titles = (back.json as { reports: { title: string }[] }).reports.map((r) => r.title);
    expect(titles).toContain('kept across a crash');
    // The session survived too: a route that requires one still lets alice in.
    expect((await alice.get('/api/storage/list')).status).toBe(200);
  });
});

describe('the local S3 stops', () => {
  it('an upload while it is down fails with the group code and leaves no record; after it is back, uploads work', async () => {
    const listed = async () => ((await alice.get('/api/storage/list')).json as { files: unknown[] }).files.length;
    const before = await listed();
    const bytes = randomBytesOf(4_000, 77);
    const fields = await partsA(bytes);
    const outage = rt.services.s3.restart({ downMs: 4_000 });
    await new Promise((r) => setTimeout(r, 200));
    const failed = await upload(alice, { file: { bytes }, fields });
    expect([502, 503]).toContain(failed.status);
    expect(['PINNING_ERROR', 'SERVICE_UNAVAILABLE']).toContain((failed.json as { error: string }).error);
    await outage;
    expect(await listed()).toBe(before);
    const ok = await upload(alice, { file: { bytes }, fields });
    expect(ok.status).toBe(201);
    expect(await listed()).toBe(before + 1);
  });
});
