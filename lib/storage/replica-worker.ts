import { randomBytes } from 'node:crypto';
import { CID } from 'multiformats/cid';
import { clock } from '#lib/clock.ts';
import {
  copiedCount,
  deleteReplicaPin,
  forgetCopies,
  getReplicaPin,
  listReplicaPinCids,
  recordCopied,
  type ReplicaAudit,
  type ReplicaPin,
  type ReplicaTargetState,
} from '#lib/data/replica-pins.ts';
import { logger } from '#lib/log.ts';
import { blockSourceOf } from './block-source.ts';
import { storageConfig } from './config.ts';
import { dagBlocks } from './dag.ts';
import { enqueueReplicaJob, enqueueReplicaJobs, type ReplicaJob } from './replica-queue.ts';
import { targetNamed, TargetFailure, type CopySource, type ReplicaTarget } from './replica-targets.ts';
import { replicaHooks, STALE_JOB_MS, updatePin } from './replicas.ts';

/**
 * Replicated pinning's background side (replicas.ts has the routes): the worker that copies a
 * file's DAG to its placements and releases them (`handleReplicaJob`), and the scheduled audit
 * that proves each placement still holds the blocks (`auditReplicas`).
 */
// ---------------------------------------------------------------------------------------------
// The worker

class SourceLost extends Error {}

/** The worker: SQS (functions/scheduled/replica-worker.ts) or the local queue run this. */
export async function handleReplicaJob(job: ReplicaJob): Promise<void> {
  switch (job.kind) {
    case 'copy':
      return copyReplicas(job.cid);
    case 'release':
      return releaseReplicas(job.cid);
    case 'audit':
      return auditJob(job.cid, job.round);
    case 'audit-round':
      await auditReplicas({ round: job.round, after: job.after });
      return;
  }
}

/** A block's verified bytes: the project's own store first, then any replica but `except`. */
async function sourceBlock(pin: ReplicaPin, block: string, except?: string): Promise<Uint8Array> {
  try {
    return await (await blockSourceOf(pin.cid)).getBytes(CID.parse(block));
  } catch {
    for (const name of pin.placements) {
      if (name === except) continue;
      const got = await targetNamed(name)?.check(pin.cid, block);
      if (got?.state === 'ok') return got.bytes!;
    }
  }
  throw new SourceLost(`no healthy copy of block ${block}`);
}

/** The DAG's blocks as `target` reads them for a copy or a repair: from anywhere but itself. */
const sourceFor = (pin: ReplicaPin, blocks: string[], target: ReplicaTarget): CopySource => ({
  blocks,
  read: (block) => sourceBlock(pin, block, target.name),
});

/** Copies what `target` does not hold yet by its journal (S3: block by block; Pinata: the whole CAR at once). */
async function copyTo(pin: ReplicaPin, blocks: string[], target: ReplicaTarget): Promise<void> {
  await target.copy(pin.cid, sourceFor(pin, blocks, target), {
    done: () => copiedCount(pin.cid, target.name),
    record: async (done) => {
      await recordCopied(pin.cid, target.name, done);
      await replicaHooks.afterBlock?.(target.name, done - 1);
    },
  });
}

async function copyReplicas(cid: string): Promise<void> {
  const start = await updatePin(cid, (p) => (p.status === 'releasing' ? undefined : { ...p, status: 'pinning' }));
  if (!start || start.status !== 'pinning') return;
  let blocks = start.blocks;
  if (!blocks) {
    try {
      const store = await blockSourceOf(cid);
      blocks = await dagBlocks(cid, (c) => store.getBytes(c));
    } catch (e) {
      await updatePin(cid, (p) => ({ ...p, status: 'failed', reason: `the content could not be read: ${(e as Error).message}` }));
      return;
    }
    const list = blocks;
    await updatePin(cid, (p) => ({ ...p, blocks: list }));
  }
  const pin = { ...start, blocks };
  const results = await Promise.allSettled(
    pin.placements.map((name) => {
      const target = targetNamed(name);
      if (!target) return Promise.reject(new TargetFailure(name, 'failed', 'no longer configured'));
      return copyTo(pin, blocks, target);
    }),
  );
  // Anything but a target or source failure (the worker itself failing) goes back to the queue.
  const crash = results.find((r) => r.status === 'rejected' && !(r.reason instanceof TargetFailure) && !(r.reason instanceof SourceLost));
  if (crash) throw (crash as PromiseRejectedResult).reason;
  const now = clock.nowMs();
  const states: Record<string, ReplicaTargetState> = Object.fromEntries(
    pin.placements.map((name, i) => {
      const r = results[i]!;
      if (r.status === 'fulfilled') return [name, { state: 'ok', at: now }];
      const e = r.reason as Error;
      return [name, { state: e instanceof TargetFailure ? e.state : 'failed', reason: e.message, at: now }];
    }),
  );
  const done = await updatePin(cid, (p) => (p.status === 'releasing' ? undefined : settle({ ...p, targets: { ...p.targets, ...states } })));
  logger.info('replica copy finished', { cid, status: done?.status });
}

/** The status the placements' states give. */
function settle(pin: ReplicaPin): ReplicaPin {
  const bad = pin.placements.filter((n) => pin.targets[n]?.state !== 'ok');
  if (!bad.length) return { ...pin, status: 'pinned', reason: undefined };
  // Reasons mostly begin with the target's name already.
  const why = bad
    .map((n) => {
      const r = pin.targets[n]?.reason ?? pin.targets[n]?.state ?? 'unknown';
      return r.startsWith(`${n}: `) ? r : `${n}: ${r}`;
    })
    .join('; ');
  const ok = pin.placements.length - bad.length;
  return { ...pin, status: ok ? 'degraded' : 'failed', reason: `${ok} of ${pin.placements.length} replicas hold the content (${why})` };
}

async function releaseReplicas(cid: string): Promise<void> {
  const pin = await getReplicaPin(cid);
  if (!pin || pin.status !== 'releasing') return;
  for (const name of pin.placements) {
    const target = targetNamed(name);
    if (target) await target.release(cid); // a target that is down fails the job: retried
    await forgetCopies(cid, name);
  }
  await deleteReplicaPin(cid, pin.version);
  logger.info('replicas released', { cid });
}

// ---------------------------------------------------------------------------------------------
// The audit

/** What the audit did with one pin. */
export interface PinAudit {
  /** Blocks read back and checked against their CIDs, over all replicas. */
  checked: number;
  repaired: number;
  /** Past its term: its replicas were released. */
  released: boolean;
  /** Its copy job went quiet and was queued again. */
  requeued: boolean;
}

/** One slice of a round's listing: at most this many CIDs per read, for at most this long. */
const AUDIT_PAGE = 500;
const AUDIT_SLICE_MS = 5 * 60_000;

export interface AuditRound {
  /** When the round began (ms): its jobs skip a pin audited since. */
  round: number;
  /** Pins whose audit this slice queued. */
  queued: number;
  /** The rest of the round was handed on as an `audit-round` job, listing from `after` (a cursor of lib/data/replica-pins.ts). */
  continued: boolean;
  after?: string;
}

/**
 * Starts an audit round (AWS: an EventBridge rule → functions/scheduled/replica-audit.ts;
 * locally: a timer in lib/local/runtime.ts), or continues one (`after`): queues one `audit` job
 * per replicated pin, page by page (lib/data/replica-pins.ts `listReplicaPinCids`), on the audit queue. The pins are audited by
 * the worker, many at once (`auditPin`); and the listing itself stops after `sliceMs` and queues
 * the rest of the round as an `audit-round` job, so no function runs into its time limit however
 * many pins there are.
 */
export async function auditReplicas(opts: { round?: number; after?: string; pageSize?: number; sliceMs?: number } = {}): Promise<AuditRound> {
  const round = opts.round ?? clock.nowMs();
  const sliceEnds = performance.now() + (opts.sliceMs ?? AUDIT_SLICE_MS);
  let after = opts.after;
  let queued = 0;
  for (;;) {
    const page = await listReplicaPinCids(after, opts.pageSize ?? AUDIT_PAGE);
    await enqueueReplicaJobs(page.cids.map((cid) => ({ kind: 'audit' as const, cid, round })));
    queued += page.cids.length;
    after = page.next;
    if (!after) break;
    if (performance.now() >= sliceEnds) {
      await enqueueReplicaJob({ kind: 'audit-round', round, after });
      logger.info('replica audit round: slice queued, the rest handed on', { round, queued, after });
      return { round, queued, continued: true, after };
    }
  }
  logger.info('replica audit round queued', { round, queued });
  return { round, queued, continued: false };
}

/**
 * The jobs a stopped local runtime took with it (its queue is in the process; on AWS, SQS keeps
 * them): at the start of a runtime that owns its table (lib/local/runtime.ts), every pin still
 * pending or pinning gets its copy job again and every pin releasing its release. Nothing of that
 * queue is running yet, so none of them is in progress; both jobs resume where the journals say.
 * Returns how many were queued.
 */
export async function requeueUnfinishedJobs(): Promise<number> {
  let after: string | undefined;
  let queued = 0;
  do {
    const page = await listReplicaPinCids(after, AUDIT_PAGE);
    for (const cid of page.cids) {
      const pin = await getReplicaPin(cid);
      const kind = pin?.status === 'releasing' ? 'release' : pin?.status === 'pending' || pin?.status === 'pinning' ? 'copy' : undefined;
      if (!kind) continue;
      await enqueueReplicaJob({ kind, cid });
      queued++;
    }
    after = page.next;
  } while (after);
  if (queued) logger.info('replica jobs of the last run queued again', { queued });
  return queued;
}

/** The `audit` job: one pin, unless it is gone or was audited since the round began (a job delivered twice, or overtaken). */
async function auditJob(cid: string, round: number): Promise<void> {
  try {
    const pin = await getReplicaPin(cid);
    if (!pin || (pin.lastAudit && pin.lastAudit.at >= round)) return;
    logger.info('replica audit', { cid, ...(await auditPin(pin)) });
  } catch (e) {
    // Not thrown back to the queue: the next round is the retry, and the dead-letter queue stays
    // for the jobs nothing else would redo (copies, releases, a round's listing).
    logger.warn('replica audit of a pin failed', { cid, error: e as Error });
  }
}

function sample<T>(items: readonly T[], n: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = randomBytes(4).readUInt32BE() % (i + 1);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

/**
 * Audits one pin: past its term → released; a job that went quiet → queued again; otherwise
 * every placement is read back — a sample of REPLICA_AUDIT_SAMPLE blocks from a healthy
 * replica, every block from one that was not healthy — and a missing or corrupted block is
 * repaired from a healthy copy. The status and `lastAudit` record what was found.
 */
async function auditPin(pin: ReplicaPin): Promise<PinAudit> {
  const result: PinAudit = { checked: 0, repaired: 0, released: false, requeued: false };
  const now = clock.nowMs();
  if (pin.status === 'releasing' || pin.expiresAtMs <= now) {
    if (pin.status !== 'releasing')
      await updatePin(pin.cid, (p) => (p.expiresAtMs <= now ? { ...p, status: 'releasing', reason: 'its term ended' } : undefined));
    await releaseReplicas(pin.cid);
    return { ...result, released: true };
  }
  if (pin.status === 'pending' || pin.status === 'pinning' || !pin.blocks) {
    if (now - pin.updatedAtMs > STALE_JOB_MS) {
      await enqueueReplicaJob({ kind: 'copy', cid: pin.cid });
      return { ...result, requeued: true };
    }
    return result;
  }
  const blocks = pin.blocks;
  const audit: ReplicaAudit = { at: now, checked: 0, repaired: 0, unreachable: [] };
  const states: Record<string, ReplicaTargetState> = {};
  for (const name of pin.placements) {
    const target = targetNamed(name);
    if (!target) {
      states[name] = { state: 'failed', reason: 'no longer configured', at: now };
      continue;
    }
    const healthy = pin.targets[name]?.state === 'ok';
    const picked = healthy ? sample(blocks, storageConfig.REPLICA_AUDIT_SAMPLE) : blocks;
    states[name] = { state: 'ok', at: now };
    const damaged: string[] = [];
    for (const block of picked) {
      const got = await target.check(pin.cid, block);
      if (got.state === 'ok') {
        audit.checked++;
        continue;
      }
      if (got.state === 'unreachable') {
        states[name] = { state: 'unreachable', reason: got.reason ?? `${name}: did not answer the audit`, at: now };
        audit.unreachable.push(name);
        break;
      }
      logger.warn('replica block damaged', { cid: pin.cid, target: name, block, found: got.state });
      damaged.push(block);
    }
    // Repaired together: an S3 target puts each block back, a Pinata target re-uploads the CAR once.
    if (damaged.length && states[name]!.state === 'ok') {
      try {
        await target.repair(pin.cid, damaged, sourceFor(pin, blocks, target));
        audit.checked += damaged.length;
        audit.repaired += damaged.length;
      } catch (e) {
        const state = e instanceof TargetFailure ? e.state : e instanceof SourceLost ? 'failed' : 'unreachable';
        const why = e instanceof TargetFailure ? e.message : `${name}: ${(e as Error).message}`;
        states[name] = { state, reason: `${why} (${damaged.length} damaged block(s) not repaired)`, at: now };
      }
    }
    // A full pass over a replica that was not healthy leaves it complete: its journal says so.
    if (!healthy && states[name]!.state === 'ok') await recordCopied(pin.cid, name, blocks.length);
  }
  await updatePin(pin.cid, (p) =>
    p.status === 'releasing' || p.status === 'pending' || p.status === 'pinning'
      ? undefined
      : settle({ ...p, targets: { ...p.targets, ...states }, lastAudit: audit, repairs: p.repairs + audit.repaired }),
  );
  return { ...result, checked: audit.checked, repaired: audit.repaired };
}
