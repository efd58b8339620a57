import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../support/runtime.ts';
import { startInstance, startSharedServices, type Instance, type SharedServices } from '../support/instances.ts';
import { form, objectKeys, randomBytesOf, sha256 } from '../support/storage.ts';

/**
 * A runtime process killed with SIGKILL in the middle of uploads and share creations (no
 * shutdown hook runs: a Lambda instance that dies mid-request), then a new one on the same
 * DynamoDB and S3: every record is whole or absent — every listed file downloads with its bytes,
 * every acknowledged upload and share is there, every share in the table points at a live file;
 * and after the orphan sweeper, no block that no file reaches (and every block a file reaches).
 */
let shared: SharedServices;
const instances: Instance[] = [];

beforeAll(async () => {
  shared = await startSharedServices();
});
afterAll(async () => {
  await Promise.all(instances.map((i) => i.stop()));
  await shared?.stop();
});

const ENV = { RATE_LIMIT_MULTIPLIER: '1000' };

/** Variant B with the ciphertext inline and no proof: the cheapest upload that writes blocks, a record and a pin. */
const uploadForm = (bytes: Uint8Array, filename: string) =>
  form({ fields: { encryptedData: Buffer.from(bytes).toString('base64'), iv: 'aXY=', salt: 'c2FsdA==', filename } });

type Outcome = { kind: 'upload' | 'share'; name: string; status?: number; json?: any; cut?: string };

describe('SIGKILL during uploads and share creation', () => {
  it('leaves no half-written record: every listed file downloads, every share resolves or is absent', async () => {
    const userId = randomUUID();
    const first = await startInstance(shared, ENV);
    instances.push(first);
    const client = await first.signedIn(userId);
    const sessionId = client.jar.get('shroud_session')!;

    const sent = new Map<string, Uint8Array>();
    const settledFiles: string[] = [];
    for (let i = 0; i < 3; i++) {
      const bytes = randomBytesOf(10_000 + i, 100 + i);
      sent.set(`base-${i}.enc`, bytes);
      const up = await client.request('POST', '/api/storage/upload', { body: uploadForm(bytes, `base-${i}.enc`) });
      expect(up.status, JSON.stringify(up.json)).toBe(201);
      settledFiles.push(up.json.fileId);
    }

    // The storm: eight clients upload one file after another (sizes up to 600 kB: several blocks
    // each) and four create shares, until the process dies under them mid-way.
    let answered = 0;
    let killed = false;
    const outcomes: Outcome[] = [];
    const attempt = async (kind: Outcome['kind'], name: string, p: Promise<{ status: number; json?: any }>) => {
      try {
        const r = await p;
        answered++;
        outcomes.push({ kind, name, status: r.status, json: r.json });
      } catch (e) {
        outcomes.push({ kind, name, cut: String(((e as Error).cause as Error | undefined)?.message ?? (e as Error).message) });
      }
    };
    const uploader = async (w: number) => {
      for (let i = 0; !killed; i++) {
        const name = `storm-${w}-${i}.enc`;
        const bytes = randomBytesOf(20_000 + (((w * 7 + i) * 97_000) % 580_000), 1000 * w + i);
        sent.set(name, bytes);
        await attempt('upload', name, client.request('POST', '/api/storage/upload', { body: uploadForm(bytes, name) }));
      }
    };
    const sharer = async (w: number) => {
      for (let i = 0; !killed; i++) {
        const fileId = settledFiles[(w + i) % 3]!;
        await attempt('share', fileId, client.post('/api/storage/share', { fileId, expiresIn: 24 }));
      }
    };
    const storm = [...Array.from({ length: 8 }, (_, w) => uploader(w)), ...Array.from({ length: 4 }, (_, w) => sharer(w))];
    const deadline = Date.now() + 20_000;
    while (answered < 16 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    killed = true;
    await first.kill();
    await Promise.all(storm);
    const cut = outcomes.filter((o) => o.cut);
    expect(cut.length, 'the kill came after every request was answered: nothing was tested').toBeGreaterThan(0);
    for (const o of outcomes.filter((x) => !x.cut)) expect(o.status, JSON.stringify(o)).toBeLessThan(500);

    // A new instance on the same data.
    const second = await startInstance(shared, ENV);
    instances.push(second);
    const after = new HttpClient(second.url);
    after.jar.set('shroud_session', sessionId);

    const listed = await after.get('/api/storage/files');
    expect(listed.status).toBe(200);
    const files = listed.json.files as { id: string; originalName: string; originalSize: number }[];
    for (const f of files) {
      const bytes = sent.get(f.originalName);
      expect(bytes, `a listed file nobody sent: ${f.originalName}`).toBeDefined();
      expect(f.originalSize).toBe(bytes!.length);
      const dl = await after.post('/api/storage/download', { fileId: f.id });
      expect(dl.status, `${f.originalName}: ${JSON.stringify(dl.json)}`).toBe(200);
      expect(sha256(new Uint8Array(await dl.res.arrayBuffer()))).toBe(sha256(bytes!));
    }
    const listedIds = new Set(files.map((f) => f.id));
    for (const o of outcomes.filter((x) => x.kind === 'upload' && x.status === 201)) expect(listedIds).toContain(o.json.fileId);
    for (const o of outcomes.filter((x) => x.kind === 'share' && x.status === 200)) {
      const resolved = await after.get(`/api/storage/shared/${o.json.shareToken}`);
      expect(resolved.status).toBe(200);
      expect(listedIds).toContain(o.name);
    }

    // Every share in the table, acknowledged or cut off, points at a live file of its owner.
    const { db, tableName } = await import('#lib/data/client.ts');
    const { getFile } = await import('#lib/data/files.ts');
    const scanned = await db.send(
      new ScanCommand({ TableName: tableName, FilterExpression: 'begins_with(pk, :p)', ExpressionAttributeValues: { ':p': 'SHARE#' } }),
    );
    expect(scanned.Items?.length ?? 0).toBeGreaterThanOrEqual(outcomes.filter((x) => x.kind === 'share' && x.status === 200).length);
    for (const item of scanned.Items ?? []) {
      const file = await getFile(item.fileId as string);
      expect(file?.userId).toBe(userId);
      expect(listedIds).toContain(item.fileId);
    }

    // Uploads cut off between their blocks and their record may have left blocks no record
    // reaches: an hour later the sweeper has taken back every one of them, and only them.
    const { advanceClock } = await import('#lib/clock.ts');
    const { ORPHAN_AGE_SECONDS, sweepOnce } = await import('#lib/storage/sweeper.ts');
    const { getPin } = await import('#lib/data/pins.ts');
    const reachable = new Set<string>();
    const liveShards = new Set<string>(); // CAR layout: the uploads whose shards a pin names
    for (const f of files) {
      const ref = (await getPin((await getFile(f.id))!.cid))?.ref;
      for (const block of ref?.blocks ?? []) reachable.add(`blocks/${block}`);
      if (ref?.shards !== undefined) liveShards.add(`shards/${ref.owner}/`);
    }
    advanceClock((ORPHAN_AGE_SECONDS + 60) * 1000);
    const report = await sweepOnce();
    expect(report.failures).toBe(0);
    const blocksAfter = await objectKeys('blocks/');
    expect(
      blocksAfter.filter((k) => !reachable.has(k)),
      'orphan blocks left after the sweep',
    ).toEqual([]);
    expect(
      [...reachable].filter((k) => !blocksAfter.includes(k)),
      'referenced blocks the sweep deleted',
    ).toEqual([]);
    const shardsAfter = await objectKeys('shards/');
    expect(
      shardsAfter.filter((k) => ![...liveShards].some((p) => k.startsWith(p))),
      'orphan shards left after the sweep',
    ).toEqual([]);
    expect(
      [...liveShards].filter((p) => !shardsAfter.includes(`${p}index.json`)),
      'referenced shards the sweep deleted',
    ).toEqual([]);
  });
});
