import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ReplicaJob } from '#lib/storage/replica-queue.ts';

/**
 * The replica queues on AWS (lib/storage/replica-queue.ts), down to the SQS requests they send:
 * a loopback server speaks SQS's JSON protocol (SendMessageBatch), records what arrives, and
 * refuses the entries a test names.
 */
interface Batch {
  queue: string;
  entries: { Id: string; MessageBody: string }[];
}
const batches: Batch[] = [];
/** Message bodies the server refuses: `once` the first time, `always` every time. */
const refuse = new Map<string, 'once' | 'always'>();
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target']);
      const input = JSON.parse(body) as { QueueUrl: string; Entries: Batch['entries'] };
      if (target !== 'AmazonSQS.SendMessageBatch') {
        res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify({ __type: 'UnsupportedOperation', message: target }));
        return;
      }
      batches.push({ queue: new URL(input.QueueUrl).pathname, entries: input.Entries });
      const Successful = [];
      const Failed = [];
      for (const e of input.Entries) {
        const rule = refuse.get(e.MessageBody);
        if (rule) {
          if (rule === 'once') refuse.delete(e.MessageBody);
          Failed.push({ Id: e.Id, SenderFault: false, Code: 'InternalError', Message: 'try again' });
        } else {
          Successful.push({ Id: e.Id, MessageId: `m-${batches.length}-${e.Id}`, MD5OfMessageBody: createHash('md5').update(e.MessageBody).digest('hex') });
        }
      }
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify({ Successful, Failed }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/000000000000`;
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await new Promise((ok) => server.close(ok));
});

async function queueModule() {
  vi.resetModules();
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'test-key');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test-secret');
  vi.stubEnv('REPLICA_QUEUE_URL', `${base}/replica-jobs`);
  vi.stubEnv('REPLICA_AUDIT_QUEUE_URL', `${base}/replica-audits`);
  return import('#lib/storage/replica-queue.ts');
}

const cid = (i: number) => `bafkreiexample${String(i).padStart(4, '0')}`;

describe('replica jobs on SQS', () => {
  it('sends audits to the audit queue and copies to the job queue, ten to a batch, each a message the worker parses', async () => {
    const { enqueueReplicaJobs, replicaJobSchema } = await queueModule();
    batches.length = 0;
    const audits: ReplicaJob[] = Array.from({ length: 23 }, (_, i) => ({ kind: 'audit', cid: cid(i), round: 1_800_000_000_000 }));
    const jobs: ReplicaJob[] = [
      { kind: 'copy', cid: cid(100) },
      ...audits,
      { kind: 'release', cid: cid(101) },
      { kind: 'audit-round', round: 1_800_000_000_000, after: cid(22) },
    ];
    await enqueueReplicaJobs(jobs);
    const to = (queue: string) => batches.filter((b) => b.queue.endsWith(`/${queue}`));
    expect(to('replica-jobs').map((b) => b.entries.length)).toEqual([2]);
    expect(to('replica-audits').map((b) => b.entries.length)).toEqual([10, 10, 4]);
    const sent = (queue: string) => to(queue).flatMap((b) => b.entries.map((e) => replicaJobSchema.parse(JSON.parse(e.MessageBody))));
    expect(sent('replica-jobs')).toEqual([jobs[0], jobs[24]]);
    expect(sent('replica-audits')).toEqual([...audits, jobs[25]]);
  });

  it('sends an entry SQS refused once again; throws when one is refused twice', async () => {
    const { enqueueReplicaJobs } = await queueModule();
    batches.length = 0;
    const jobs: ReplicaJob[] = Array.from({ length: 12 }, (_, i) => ({ kind: 'audit', cid: cid(i), round: 1 }));
    refuse.set(JSON.stringify(jobs[3]), 'once');
    refuse.set(JSON.stringify(jobs[11]), 'once');
    await enqueueReplicaJobs(jobs);
    // Batch 1 (ten), its refused entry again; batch 2 (two), its refused entry again.
    expect(batches.map((b) => b.entries.length)).toEqual([10, 1, 2, 1]);
    expect(JSON.parse(batches[1]!.entries[0]!.MessageBody)).toEqual(jobs[3]);

    refuse.set(JSON.stringify(jobs[5]), 'always');
    await expect(enqueueReplicaJobs(jobs.slice(0, 10))).rejects.toThrow('replica queue: 1 job(s) not queued');
    refuse.clear();
  });

  it('refuses at cold start a job queue without the audit queue (or the other way round)', async () => {
    const { readStorageConfig } = await import('#lib/storage/config.ts');
    expect(() => readStorageConfig({ REPLICA_QUEUE_URL: `${base}/replica-jobs` })).toThrow(/REPLICA_AUDIT_QUEUE_URL/);
    expect(() => readStorageConfig({ REPLICA_AUDIT_QUEUE_URL: `${base}/replica-audits` })).toThrow(/REPLICA_AUDIT_QUEUE_URL/);
    expect(readStorageConfig({ REPLICA_QUEUE_URL: 'a', REPLICA_AUDIT_QUEUE_URL: 'b' })).toMatchObject({ REPLICA_QUEUE_URL: 'a', REPLICA_AUDIT_QUEUE_URL: 'b' });
  });
});
