import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { appendMember, getGroup, getRoot, insertGroup, listMembers, listRoots, type GroupRecord } from '#lib/data/attest-groups.ts';
import { CONFLICT, retryOnConflict } from '#lib/data/retry.ts';
import { errors } from '#lib/errors.ts';
import { BN254_R } from '#lib/zk/bn254.ts';
import { appendLeaf, emptyTree, poseidonHash2, TREE_DEPTH } from '#lib/zk/merkle.ts';
import { attestConfig } from './config.ts';

/**
 * Groups for membership attestations: an owner creates a group and adds identity commitments
 * (Poseidon(secret), made by each member's client; never the secret). The tree is the depth-20
 * Poseidon tree the membership circuits read; every root the group had is kept, and a proof made
 * against any of the latest ATTEST_ROOT_HISTORY roots is accepted.
 */
export const groupIdParams = z.object({ id: z.uuid('must be a group id') });
export const createGroupInput = z.object({ name: z.string().trim().min(1).max(100) });
const decimal = z.string().regex(/^[0-9]{1,78}$/, 'must be a decimal string');
export const addMemberInput = z.object({ commitment: decimal });

export const groupResponse = z.object({
  id: z.string(),
  name: z.string(),
  root: z.string(),
  size: z.number().int(),
  depth: z.number().int(),
  createdAt: z.string(),
  recentRoots: z.array(z.string()),
});
export const createGroupResponse = z.object({ group: groupResponse });
export const addMemberResponse = z.object({ index: z.number().int(), commitment: z.string(), root: z.string(), size: z.number().int() });
export const membersResponse = z.object({ id: z.string(), size: z.number().int(), commitments: z.array(z.string()) });

const publicView = (g: GroupRecord, recentRoots: string[]) => ({
  id: g.id,
  name: g.name,
  root: g.root,
  size: g.size,
  depth: g.depth,
  createdAt: g.createdAt,
  recentRoots,
});

export async function createGroup(ownerId: string, input: z.infer<typeof createGroupInput>) {
  const empty = emptyTree(await poseidonHash2());
  const root = empty.root.toString();
  const g: GroupRecord = {
    id: randomUUID(),
    ownerId,
    name: input.name,
    depth: TREE_DEPTH,
    size: 0,
    root,
    filled: empty.filled.map(String),
    rootSeq: 0,
    createdAt: clock.now().toISOString(),
  };
  await insertGroup(g);
  return { group: publicView(g, [root]) };
}

async function groupOr404(id: string): Promise<GroupRecord> {
  const g = await getGroup(id);
  if (!g) throw errors.notFound('no such group');
  return g;
}

/** Public: the root, size and depth anyone needs to check a membership attestation. */
export async function readGroup(id: string) {
  const g = await groupOr404(id);
  const roots = (await listRoots(id)).slice(0, attestConfig.ATTEST_ROOT_HISTORY).map((r) => r.root);
  return publicView(g, roots);
}

/** Public: the commitments in tree order, from which a member computes its Merkle path. */
export async function readMembers(id: string) {
  const g = await groupOr404(id);
  return { id, size: g.size, commitments: await listMembers(id) };
}

/** The owner adds an identity commitment (another user: 404, as an unknown group). */
export async function addMember(userId: string, groupId: string, commitment: string) {
  const leaf = BigInt(commitment);
  if (leaf === 0n || leaf >= BN254_R) throw errors.invalidInput('commitment: must be a non-zero field element (Poseidon(secret))');
  const canonical = leaf.toString();
  return retryOnConflict(
    async () => {
      const g = await groupOr404(groupId);
      if (g.ownerId !== userId) throw errors.notFound('no such group');
      const { root, filled } = appendLeaf(await poseidonHash2(), { size: g.size, root: BigInt(g.root), filled: g.filled.map(BigInt) }, leaf);
      const next: GroupRecord = { ...g, size: g.size + 1, root: root.toString(), filled: filled.map(String), rootSeq: g.rootSeq + 1 };
      const outcome = await appendMember(g, next, canonical);
      if (outcome === 'duplicate') throw errors.conflict('this commitment is already in the group');
      if (outcome === 'added') return { index: g.size, commitment: canonical, root: next.root, size: next.size };
      return CONFLICT;
    },
    { attempts: 8, exhausted: () => errors.conflict('the group changed too often while adding; retry') },
  );
}

/** A membership proof's root must be one of the group's latest roots, and not the empty tree's. */
export async function requireRecentRoot(groupId: string, root: string): Promise<void> {
  const g = await getGroup(groupId);
  if (!g) throw errors.schemaMismatch('group: no such group');
  const r = await getRoot(groupId, root);
  if (!r || r.size === 0) throw errors.schemaMismatch('publicSignals: root is not a root of this group');
  if (g.rootSeq - r.seq >= attestConfig.ATTEST_ROOT_HISTORY) {
    throw errors.schemaMismatch(`publicSignals: root is older than the group's latest ${attestConfig.ATTEST_ROOT_HISTORY} roots`);
  }
}
