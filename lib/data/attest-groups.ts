import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { tableName } from './client.ts';
import { decoder, listPartition, readItem, transactWrite } from './items.ts';

/**
 * Attestation groups (identity commitments in a Poseidon Merkle tree, lib/attest/groups.ts):
 *
 *   AGROUP#<id> / GROUP          GroupRecord: owner, size, root, the tree's frontier, root counter
 *   AGROUP#<id> / M#<index>      {index, commitment}   (index zero-padded: listed in order)
 *   AGROUP#<id> / C#<commitment> {index}               a commitment is in a group once
 *   AGROUP#<id> / R#<root>       {seq, size, createdAt} the root history
 *
 * A member is added in one transaction conditioned on the size read before (optimistic
 * concurrency: a concurrent add makes it retry on the new frontier).
 */
const groupSchema = z.object({
  id: z.string(),
  ownerId: z.string(),
  name: z.string(),
  depth: z.number().int(),
  size: z.number().int(),
  root: z.string(),
  filled: z.array(z.string()),
  rootSeq: z.number().int(),
  createdAt: z.string(),
});
export type GroupRecord = z.infer<typeof groupSchema>;
export const groupDecoder = decoder('attest group', groupSchema);

const memberSchema = z.object({ index: z.number().int(), commitment: z.string() });
const memberDecoder = decoder('attest group member', memberSchema);
const rootSchema = z.object({ root: z.string(), seq: z.number().int(), size: z.number().int(), createdAt: z.string() });
export type RootRecord = z.infer<typeof rootSchema>;
const rootDecoder = decoder('attest group root', rootSchema);

const pk = (id: string) => `AGROUP#${id}`;
const rootItem = (g: { id: string }, r: RootRecord) => ({ pk: pk(g.id), sk: `R#${r.root}`, ...r });

export async function insertGroup(g: GroupRecord): Promise<void> {
  await transactWrite([
    { Put: { TableName: tableName, Item: { pk: pk(g.id), sk: 'GROUP', ...g }, ConditionExpression: 'attribute_not_exists(pk)' } },
    { Put: { TableName: tableName, Item: rootItem(g, { root: g.root, seq: g.rootSeq, size: g.size, createdAt: g.createdAt }) } },
  ]);
}

export const getGroup = (id: string): Promise<GroupRecord | undefined> => readItem({ pk: pk(id), sk: 'GROUP' }, groupDecoder);

export type AddOutcome = 'added' | 'stale' | 'duplicate';

/** Appends a member as `next` describes; `stale` when the group changed since `prev` was read. */
export async function appendMember(prev: GroupRecord, next: GroupRecord, commitment: string): Promise<AddOutcome> {
  const failed = await transactWrite([
    {
      Update: {
        TableName: tableName,
        Key: { pk: pk(prev.id), sk: 'GROUP' },
        UpdateExpression: 'SET #size = :size, #root = :root, filled = :filled, rootSeq = :seq',
        ConditionExpression: '#size = :prevSize',
        ExpressionAttributeNames: { '#size': 'size', '#root': 'root' },
        ExpressionAttributeValues: { ':size': next.size, ':root': next.root, ':filled': next.filled, ':seq': next.rootSeq, ':prevSize': prev.size },
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: { pk: pk(prev.id), sk: `M#${String(prev.size).padStart(8, '0')}`, index: prev.size, commitment },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    { Put: { TableName: tableName, Item: { pk: pk(prev.id), sk: `C#${commitment}`, index: prev.size }, ConditionExpression: 'attribute_not_exists(pk)' } },
    { Put: { TableName: tableName, Item: rootItem(prev, { root: next.root, seq: next.rootSeq, size: next.size, createdAt: clock.now().toISOString() }) } },
  ]);
  if (failed < 0) return 'added';
  if (failed === 2) return 'duplicate';
  return 'stale';
}

export const getRoot = (groupId: string, root: string): Promise<RootRecord | undefined> => readItem({ pk: pk(groupId), sk: `R#${root}` }, rootDecoder);

export async function listMembers(groupId: string): Promise<string[]> {
  return (await listPartition(pk(groupId), memberDecoder, { prefix: 'M#' })).map((m) => m.commitment);
}

/** The group's roots, newest first. */
export async function listRoots(groupId: string): Promise<RootRecord[]> {
  return (await listPartition(pk(groupId), rootDecoder, { prefix: 'R#' })).sort((a, b) => b.seq - a.seq);
}
