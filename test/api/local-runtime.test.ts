import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../support/runtime.ts';
import { npmStart } from '../support/npm-start.ts';

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

const started: Awaited<ReturnType<typeof npmStart>>[] = [];
afterAll(async () => {
  for (const s of started) await s.stop();
});

describe('npm start', () => {
  // Two starts of the whole runtime (DynamoDB Local, S3, the embedded L1) on a shared 2-core machine.
  it('serves /api/init, keeps data across a restart, and stops cleanly on SIGTERM', { timeout: 180_000 }, async () => {
    const first = await npmStart();
    started.push(first);
    const client = new HttpClient(first.url);
    const init = await client.get('/api/init');
    expect(init.status).toBe(200);
    expect(init.json.service.name).toBe('shroud');

    const created = await client.post('/api/bug-reports', { title: 'survives restarts', description: 'kept under DATA_DIR' });
    expect(created.status).toBe(201);
    await first.stop();
    expect(await portOpen(Number(new URL(first.url).port))).toBe(false);

    const second = await npmStart(first.dataDir);
    started.push(second);
    const again = new HttpClient(second.url);
    for (const [k, v] of client.jar) again.jar.set(k, v);
    const listed = await again.get('/api/bug-reports');
    expect(listed.json.reports.map((r: { title: string }) => r.title)).toContain('survives restarts');
    await second.stop();
    expect(second.leftovers()).toEqual([]);
  });
});
