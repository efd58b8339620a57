import { createHash, randomBytes } from 'node:crypto';
import { CID } from 'multiformats/cid';
import * as z from 'zod';
import { encodeStorageProof, fromHex, linkChoice, linksOf, toHex, type ReplicaAnswer } from '#lib/client/storage-proof.ts';
import { clock } from '#lib/clock.ts';
import { getPin } from '#lib/data/pins.ts';
import { getReplicaPin, replicaStatuses, saveReplicaPin, type ReplicaPin } from '#lib/data/replica-pins.ts';
import { CONFLICT, retryOnConflict } from '#lib/data/retry.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { storageConfig } from './config.ts';
import { newestFileWithCid } from '#lib/data/files.ts';
import { ownedFileByCid } from './files.ts';
import { enqueueReplicaJob } from './replica-queue.ts';
import { replicaTargets, targetNamed, type ReplicaTarget } from './replica-targets.ts';

/**
 * Replicated pinning: a file's whole DAG copied to `replicas` of the configured storage targets
 * (replica-targets.ts), in the background (replica-queue.ts → replica-worker.ts `handleReplicaJob`), audited on a
 * schedule (`auditReplicas`), released at the end of its term or when its last owner deletes
 * the file. Records: lib/data/replica-pins.ts.
 *
 * Statuses: `pending` (queued) → `pinning` (the worker copies) → `pinned` (every placement holds
 * every block) | `degraded` (some do; `reason` says which do not and why) | `failed` (none does,
 * or the content itself is gone); `releasing` while the replicas are deleted.
 */
export const MIN_REPLICAS = 3;
/**
 * A pending/pinning pin not touched for this long lost its job (a local worker died): re-enqueued
 * by the audit. Longer than a copy may run (the worker's 15 minutes; SQS redelivers after 16), so
 * a copy still under way is not queued a second time.
 */
export const STALE_JOB_MS = 20 * 60_000;

export const replicaPinInput = z.object({
  cid: z.string().min(1).max(200),
  replicas: z.number().int(),
});

export const replicaStatusParams = z.object({ cid: z.string().min(1).max(200) });
export const replicaStatusQuery = z.object({
  /** The verifier's own fresh challenge (32 bytes, hex); without it the server draws one. */
  challenge: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, '32 bytes as hex')
    .optional(),
});

const targetStateView = z.object({ name: z.string(), state: z.enum(['pending', 'ok', 'unreachable', 'failed']), reason: z.string().optional() });
export const replicaStatusSchema = z.object({
  cid: z.string(),
  replicas: z.number(),
  status: z.enum(replicaStatuses),
  reason: z.string().optional(),
  expiresAt: z.string(),
  targets: z.array(targetStateView),
  repairs: z.number(),
  lastAudit: z.object({ at: z.string(), checked: z.number(), repaired: z.number(), unreachable: z.array(z.string()) }).optional(),
  /** Hex (format: README, lib/client/storage-proof.ts); null before any replica holds the content. */
  storageProof: z.string().nullable(),
  challenge: z.string().nullable(),
  provedAt: z.string().nullable(),
});
export type ReplicaStatusView = z.infer<typeof replicaStatusSchema>;

/** Test hooks into the worker (a crash between two blocks). */
export const replicaHooks: { afterBlock?: (target: string, index: number) => Promise<void> | void } = {};

const iso = (ms: number) => new Date(ms).toISOString();

// ---------------------------------------------------------------------------------------------
// The routes

function checkBounds(replicas: number): void {
  const max = replicaTargets.length;
  if (max < MIN_REPLICAS) throw errors.invalidInput(`replicas: replicated pinning needs at least ${MIN_REPLICAS} storage targets; ${max} configured`);
  if (replicas < MIN_REPLICAS || replicas > max)
    throw errors.invalidInput(`replicas: must be between ${MIN_REPLICAS} and ${max} (the number of storage targets)`);
}

/** Rendezvous hashing: the same CID always lands on the same targets, spread over all of them. */
function placementsFor(cid: string, n: number, existing: string[] = []): string[] {
  const rank = (name: string) => createHash('sha256').update(`${cid}\0${name}`).digest('hex');
  const others = replicaTargets
    .map((t) => t.name)
    .filter((n) => !existing.includes(n))
    .sort((a, b) => rank(a).localeCompare(rank(b)));
  return [...existing, ...others].slice(0, Math.max(n, existing.length));
}

/** Read, change, write under the record's version; retried when someone else wrote meanwhile. */
export async function updatePin(cid: string, change: (pin: ReplicaPin) => ReplicaPin | undefined): Promise<ReplicaPin | undefined> {
  return retryOnConflict(async () => {
    const pin = await getReplicaPin(cid);
    if (!pin) return undefined;
    const next = change(pin);
    if (!next) return pin;
    const saved = { ...next, version: pin.version + 1, updatedAtMs: clock.nowMs() };
    if (await saveReplicaPin(saved)) return saved;
    return CONFLICT;
  }, PIN_RETRY);
}

/** A pin's writers (the request route, the worker, the audit) race on its version: retried (lib/data/retry.ts), then 409. */
const PIN_RETRY = { attempts: 20, exhausted: () => errors.conflict('the replicated pin is changing; retry') };

/**
 * `POST /api/storage/replica/pin`: the caller's own, live file. A new pin is queued; pinning
 * again renews the term (and adds replicas when more are asked for; never fewer); a failed pin
 * is retried. Answers the status without a proof (the copy has not run yet).
 */
export async function requestReplicaPin(userId: string, input: z.infer<typeof replicaPinInput>): Promise<ReplicaStatusView> {
  checkBounds(input.replicas);
  const file = await ownedFileByCid(userId, input.cid);
  const content = await getPin(file.cid);
  if (!content || content.state !== 'pinned') throw errors.cidNotFound();
  const now = clock.nowMs();
  const expiresAtMs = now + storageConfig.REPLICA_TERM_DAYS * 86_400_000;
  return retryOnConflict(async () => {
    const pin = await getReplicaPin(file.cid);
    if (!pin) {
      const placements = placementsFor(file.cid, input.replicas);
      const fresh: ReplicaPin = {
        cid: file.cid,
        owners: [userId],
        replicas: input.replicas,
        status: 'pending',
        placements,
        targets: Object.fromEntries(placements.map((n) => [n, { state: 'pending', at: now }])),
        expiresAtMs,
        createdAtMs: now,
        updatedAtMs: now,
        repairs: 0,
        version: 1,
      };
      if (!(await saveReplicaPin(fresh))) return CONFLICT;
      await enqueueReplicaJob({ kind: 'copy', cid: file.cid });
      logger.info('replica pin requested', { cid: file.cid, replicas: input.replicas });
      return view(fresh);
    }
    if (pin.status === 'releasing') throw errors.conflict('this pin is being released; retry in a moment');
    const replicas = Math.max(pin.replicas, input.replicas);
    const placements = placementsFor(file.cid, replicas, pin.placements);
    const added = placements.filter((n) => !pin.placements.includes(n));
    // A copy that went quiet (its worker gone) is queued again now, rather than at the next audit.
    const inFlight = pin.status === 'pending' || pin.status === 'pinning';
    const stale = inFlight && now - pin.updatedAtMs > STALE_JOB_MS;
    const requeue = added.length > 0 || pin.status === 'failed' || stale;
    const next: ReplicaPin = {
      ...pin,
      owners: pin.owners.includes(userId) ? pin.owners : [...pin.owners, userId],
      replicas,
      placements,
      targets: { ...pin.targets, ...Object.fromEntries(added.map((n) => [n, { state: 'pending' as const, at: now }])) },
      expiresAtMs: Math.max(pin.expiresAtMs, expiresAtMs),
      ...(requeue ? { status: 'pending' as const, reason: undefined } : {}),
      version: pin.version + 1,
      // A renewal is not the copy's progress: the audit's went-quiet clock keeps running.
      updatedAtMs: inFlight && !requeue ? pin.updatedAtMs : now,
    };
    if (!(await saveReplicaPin(next))) return CONFLICT;
    if (requeue) await enqueueReplicaJob({ kind: 'copy', cid: file.cid });
    return view(next);
  }, PIN_RETRY);
}

/** `GET /api/storage/replica/status/:cid`: the caller's pin, with a storage proof for a fresh challenge. */
export async function replicaStatus(userId: string, cid: string, challengeHex?: string): Promise<ReplicaStatusView> {
  await ownedFileByCid(userId, cid);
  const pin = await getReplicaPin(cid);
  if (!pin || !pin.owners.includes(userId)) throw errors.notFound('no replicated pin of this CID');
  const challenge = challengeHex ? fromHex(challengeHex.toLowerCase()) : randomBytes(32);
  const answers = pin.blocks ? await proveAll(pin, challenge) : [];
  if (!answers.length) return view(pin);
  const storageProof = encodeStorageProof({ challenge, root: CID.parse(pin.cid), replicas: answers });
  return { ...view(pin), storageProof, challenge: toHex(challenge), provedAt: iso(clock.nowMs()) };
}

function view(pin: ReplicaPin): ReplicaStatusView {
  return {
    cid: pin.cid,
    replicas: pin.replicas,
    status: pin.status,
    ...(pin.reason ? { reason: pin.reason } : {}),
    expiresAt: iso(pin.expiresAtMs),
    targets: pin.placements.map((name) => {
      const t = pin.targets[name] ?? { state: 'pending' as const };
      return { name, state: t.state, ...(t.reason ? { reason: t.reason } : {}) };
    }),
    repairs: pin.repairs,
    ...(pin.lastAudit ? { lastAudit: { ...pin.lastAudit, at: iso(pin.lastAudit.at) } } : {}),
    storageProof: null,
    challenge: null,
    provedAt: null,
  };
}

/** Each placement's answer to the challenge; a replica that cannot answer is left out. */
async function proveAll(pin: ReplicaPin, challenge: Uint8Array): Promise<ReplicaAnswer[]> {
  const answers = await Promise.all(
    pin.placements.map(async (name) => {
      const target = targetNamed(name);
      if (!target) return undefined;
      try {
        return await prove(target, pin.cid, challenge);
      } catch (e) {
        logger.warn('replica could not answer the challenge', { cid: pin.cid, target: name, error: e as Error });
        return undefined;
      }
    }),
  );
  return answers.filter((a): a is ReplicaAnswer => !!a);
}

/**
 * One replica's answer: the blocks on the challenge's path, read from that replica (an S3
 * target's objects, a Pinata target's gateway), each checked against its CID by the target.
 */
async function prove(target: ReplicaTarget, root: string, challenge: Uint8Array): Promise<ReplicaAnswer> {
  const nodes: Uint8Array[] = [];
  let cid = CID.parse(root);
  for (let depth = 0; depth < 32; depth++) {
    const bytes = await target.readBlock(root, cid);
    nodes.push(bytes);
    const links = linksOf(cid, bytes);
    if (!links.length) return { name: target.name, atMs: clock.nowMs(), nodes };
    cid = links[await linkChoice(challenge, target.name, depth, links.length)]!;
  }
  throw new Error('DAG deeper than 32 levels');
}

/**
 * After the caller's file is deleted: the caller no longer keeps the pin (unless another of
 * their files has the same CID); the last owner's going releases every replica.
 */
export async function dropReplicaOwner(userId: string, cid: string): Promise<void> {
  if (await newestFileWithCid(userId, cid)) return; // another of their files still has it
  const pin = await updatePin(cid, (p) => {
    if (!p.owners.includes(userId)) return undefined;
    const owners = p.owners.filter((o) => o !== userId);
    return { ...p, owners, ...(owners.length ? {} : { status: 'releasing' as const, reason: 'no owner keeps it' }) };
  });
  if (pin?.status === 'releasing') await enqueueReplicaJob({ kind: 'release', cid });
}
