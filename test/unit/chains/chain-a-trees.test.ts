import { TreeType, type TreeInfo } from '@lightprotocol/stateless.js';
import { Keypair } from '@solana/web3.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalChainA } from '#lib/local/chain-a/chain.ts';
import { SMALL_TREE_CONFIG } from '#lib/local/chain-a/trees.ts';
import * as ops from '#lib/chains/chain-a/operations.ts';

/**
 * The local chain A past its state trees' capacity (lib/local/chain-a/trees.ts). Each of the five
 * initial V2 trees' output queues holds 100 new compressed accounts and no forester empties them
 * locally; before the chain registered trees, the 449th account or so was refused (BatchNotReady).
 * With trees of the initial trees' own size (100 accounts), 700 accounts fill the five initial
 * trees (500 at most) and at least one registered tree: two are open at a time, and a tree counts as
 * full with 10 places left, so the 200 past the initial trees cannot all fit in the first two.
 */
const ACCOUNTS = 700;
const v2 = (infos: TreeInfo[]) => infos.filter((t) => t.treeType === TreeType.StateV2);

describe('chain A, local: state trees registered as the old ones fill', () => {
  let dir: string;
  let chain: LocalChainA;
  const signers = Array.from({ length: 4 }, () => Keypair.generate());

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shroud-chaina-trees-'));
    chain = await LocalChainA.open(dir, { treeConfig: SMALL_TREE_CONFIG });
    for (const s of signers) await chain.airdrop(s.publicKey, 10_000_000_000n);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`${ACCOUNTS} new compressed accounts all land, on trees the registry program created when the first ones filled`, async () => {
    for (let i = 0; i < ACCOUNTS; i++) await ops.compressNative(chain, signers[i % signers.length]!, 1_000n);
    for (const s of signers) expect(await ops.compressedNativeBalance(chain, s.publicKey)).toBe(1_000n * BigInt(ACCOUNTS / signers.length));

    const infos = v2(await chain.rpc.getStateTreeInfos());
    expect(infos.length).toBeGreaterThanOrEqual(7);
    const full = infos.filter((t) => t.nextTreeInfo);
    // every initial tree is full, and at least one registered tree filled after them
    expect(full.length).toBeGreaterThanOrEqual(6);
    expect(full.map((t) => t.tree.toBase58())).toEqual(
      expect.arrayContaining(['bmt1LryLZUMmF7ZtqESaw7wifBXLfXHQYoE4GAmrahU', 'bmt5yU97jC88YXTuSukYHa8Z5Bi2ZDUtmzfkDTA2mG2']),
    );
    // and the list the SDK picks from still has room
    expect(infos.filter((t) => !t.nextTreeInfo).length).toBeGreaterThanOrEqual(2);
    for (const t of full) expect(t.nextTreeInfo && !t.nextTreeInfo.nextTreeInfo).toBe(true);
  });

  it('accounts in a full tree are spent, their change going to an open tree', async () => {
    const alice = signers[0]!;
    const before = (await chain.rpc.getCompressedAccountsByOwner(alice.publicKey)).items;
    const inFull = before.filter((a) => a.treeInfo.nextTreeInfo);
    expect(inFull.length).toBeGreaterThan(0);
    await ops.decompressNative(chain, alice, 2_500n);
    const after = (await chain.rpc.getCompressedAccountsByOwner(alice.publicKey)).items;
    expect(after.reduce((s, a) => s + BigInt(a.lamports.toString()), 0n)).toBe(1_000n * BigInt(ACCOUNTS / signers.length) - 2_500n);
    const fresh = after.filter((a) => !before.some((b) => b.hash.eq(a.hash)));
    expect(fresh).toHaveLength(1);
    expect(fresh[0]!.treeInfo.nextTreeInfo).toBeNull();
  });

  it('a restart finds the registered trees, the same balances, and keeps taking accounts', async () => {
    const trees = v2(await chain.rpc.getStateTreeInfos()).map((t) => t.tree.toBase58());
    const balances = await Promise.all(signers.map((s) => ops.compressedNativeBalance(chain, s.publicKey)));
    await chain.close();
    chain = await LocalChainA.open(dir, { treeConfig: SMALL_TREE_CONFIG });
    expect(
      v2(await chain.rpc.getStateTreeInfos())
        .map((t) => t.tree.toBase58())
        .sort(),
    ).toEqual([...trees].sort());
    expect(await Promise.all(signers.map((s) => ops.compressedNativeBalance(chain, s.publicKey)))).toEqual(balances);
    for (let i = 0; i < 20; i++) await ops.compressNative(chain, signers[1]!, 7n);
    expect(await ops.compressedNativeBalance(chain, signers[1]!.publicKey)).toBe(balances[1]! + 140n);
    await chain.close();
  });
});
