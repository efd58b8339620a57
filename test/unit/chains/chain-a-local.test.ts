import { bn, buildAndSignTx, getParsedEvents, LightSystemProgram } from '@lightprotocol/stateless.js';
import { ComputeBudgetProgram, Keypair } from '@solana/web3.js';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalChainA } from '#lib/local/chain-a/chain.ts';
import { ChainStore } from '#lib/local/chain-a/store.ts';
import { ChainRejected } from '#lib/chains/chain-a/port.ts';
import * as ops from '#lib/chains/chain-a/operations.ts';

/**
 * The local chain A: LiteSVM running Light Protocol's own programs. Every balance below is read
 * back from the runtime's accounts and the programs' events; the refusals are the programs'.
 */
const SOL = 1_000_000_000n;
/** Fees are the runtime's (signature fee plus the trees' network fees): small, never zero. */
const expectFee = (before: bigint, after: bigint, moved: bigint) => {
  const fee = before - after - moved;
  expect(fee).toBeGreaterThanOrEqual(5_000n);
  expect(fee).toBeLessThan(100_000n);
};

describe('chain A, local (LiteSVM + Light Protocol programs)', () => {
  let dir: string;
  let chain: LocalChainA;
  const alice = Keypair.generate();
  const bob = Keypair.generate();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shroud-chaina-'));
    chain = await LocalChainA.open(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('airdrops, compresses 1.5 and decompresses 0.5 of the native coin', async () => {
    await chain.airdrop(alice.publicKey, 10n * SOL);
    expect(await ops.nativeBalance(chain, alice.publicKey)).toBe(10n * SOL);

    const c = await ops.compressNative(chain, alice, 1_500_000_000n);
    expect(c.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
    expect(await ops.compressedNativeBalance(chain, alice.publicKey)).toBe(1_500_000_000n);
    const afterCompress = await ops.nativeBalance(chain, alice.publicKey);
    expectFee(10n * SOL, afterCompress, 1_500_000_000n);

    await ops.decompressNative(chain, alice, 500_000_000n);
    expect(await ops.compressedNativeBalance(chain, alice.publicKey)).toBe(1_000_000_000n);
    expectFee(afterCompress, await ops.nativeBalance(chain, alice.publicKey), -500_000_000n);
  });

  it('creates a token, mints, compresses, transfers to another owner and decompresses', async () => {
    const { mint } = await ops.createMint(chain, alice, 6);
    expect(await ops.mintInfo(chain, mint)).toMatchObject({ decimals: 6 });
    await ops.mintTo(chain, alice, mint, alice.publicKey, 5_000_000n);
    expect(await ops.tokenBalance(chain, alice.publicKey, mint)).toBe(5_000_000n);

    await ops.compressToken(chain, alice, mint, 3_000_000n);
    expect(await ops.tokenBalance(chain, alice.publicKey, mint)).toBe(2_000_000n);
    expect(await ops.compressedTokenBalance(chain, alice.publicKey, mint)).toBe(3_000_000n);

    await ops.transferCompressed(chain, alice, mint, bob.publicKey, 1_250_000n);
    expect(await ops.compressedTokenBalance(chain, alice.publicKey, mint)).toBe(1_750_000n);
    expect(await ops.compressedTokenBalance(chain, bob.publicKey, mint)).toBe(1_250_000n);

    await ops.decompressToken(chain, alice, mint, 750_000n);
    expect(await ops.compressedTokenBalance(chain, alice.publicKey, mint)).toBe(1_000_000n);
    expect(await ops.tokenBalance(chain, alice.publicKey, mint)).toBe(2_750_000n);
  });

  it('transactions of different wallets in flight at once all land (each built on a valid blockhash)', async () => {
    const signers = Array.from({ length: 6 }, () => Keypair.generate());
    for (const s of signers) await chain.airdrop(s.publicKey, SOL);
    const sent = await Promise.all(signers.map((s) => ops.compressNative(chain, s, 1_000_000n)));
    expect(new Set(sent.map((x) => x.signature)).size).toBe(signers.length);
    for (const s of signers) expect(await ops.compressedNativeBalance(chain, s.publicKey)).toBe(1_000_000n);
  });

  it("stateless.js's own event parser, reading through the same RPC, sees the accounts the index serves", async () => {
    const events = await getParsedEvents(chain.rpc);
    const outputs = new Set(events.flatMap((e) => e.outputCompressedAccountHashes.map((h) => bn(h).toString())));
    const spent = new Set(events.flatMap((e) => e.inputCompressedAccountHashes.map((h) => bn(h).toString())));
    const mine = (await chain.rpc.getCompressedAccountsByOwner(alice.publicKey)).items;
    expect(mine.length).toBeGreaterThan(0);
    for (const a of mine) {
      expect(outputs.has(bn(a.hash).toString())).toBe(true);
      expect(spent.has(bn(a.hash).toString())).toBe(false);
    }
  });

  it('refuses an address that is not a mint', async () => {
    await expect(ops.mintInfo(chain, alice.publicKey)).rejects.toBeInstanceOf(ops.NotAMint);
  });

  it('the light system program refuses a double spend of a compressed account', async () => {
    const inputs = (await chain.rpc.getCompressedAccountsByOwner(alice.publicKey)).items;
    const proof = await chain.rpc.getValidityProof(inputs.map((a) => bn(a.hash)));
    const build = async () => {
      const ix = await LightSystemProgram.decompress({
        payer: alice.publicKey,
        toAddress: alice.publicKey,
        inputCompressedAccounts: inputs,
        recentValidityProof: proof.compressedProof,
        recentInputStateRootIndices: proof.rootIndices,
        lamports: bn(100),
      });
      const { blockhash } = await chain.rpc.getLatestBlockhash();
      return buildAndSignTx([ComputeBudgetProgram.setComputeUnitLimit({ units: 1_000_000 }), ix], alice, blockhash);
    };
    await chain.sendAndConfirm(await build());
    const again = chain.sendAndConfirm(await build());
    await expect(again).rejects.toBeInstanceOf(ChainRejected);
    await expect(again).rejects.toMatchObject({ customCode: 14307 });
    expect(await ops.compressedNativeBalance(chain, alice.publicKey)).toBe(1_000_000_000n - 100n);
  });

  it("the programs refuse spending someone else's compressed account", async () => {
    await chain.airdrop(bob.publicKey, SOL);
    const inputs = (await chain.rpc.getCompressedAccountsByOwner(alice.publicKey)).items;
    const proof = await chain.rpc.getValidityProof(inputs.map((a) => bn(a.hash)));
    const ix = await LightSystemProgram.decompress({
      payer: bob.publicKey,
      toAddress: bob.publicKey,
      inputCompressedAccounts: inputs,
      recentValidityProof: proof.compressedProof,
      recentInputStateRootIndices: proof.rootIndices,
      lamports: bn(1000),
    });
    const { blockhash } = await chain.rpc.getLatestBlockhash();
    const tx = buildAndSignTx([ComputeBudgetProgram.setComputeUnitLimit({ units: 1_000_000 }), ix], bob, blockhash);
    await expect(chain.sendAndConfirm(tx)).rejects.toMatchObject({ name: 'ChainRejected', customCode: 6001 });
    expect(await ops.compressedNativeBalance(chain, alice.publicKey)).toBe(1_000_000_000n - 100n);
  });

  it('the runtime refuses compressing more than the wallet holds (overdraft)', async () => {
    const before = await ops.nativeBalance(chain, bob.publicKey);
    await expect(ops.compressNative(chain, bob, 2n * SOL)).rejects.toMatchObject({ name: 'ChainRejected', insufficientFunds: true });
    expect(await ops.compressedNativeBalance(chain, bob.publicKey)).toBe(0n);
    expect(await ops.nativeBalance(chain, bob.publicKey)).toBeLessThanOrEqual(before);
  });

  it('a reopened chain has the same balances (snapshot under DATA_DIR)', async () => {
    const again = await LocalChainA.open(dir);
    expect(await ops.compressedNativeBalance(again, alice.publicKey)).toBe(await ops.compressedNativeBalance(chain, alice.publicKey));
    expect(await ops.nativeBalance(again, alice.publicKey)).toBe(await ops.nativeBalance(chain, alice.publicKey));
    // and it keeps working: the restored runtime executes new transactions
    await ops.compressNative(again, alice, 1n);
    expect(await ops.compressedNativeBalance(again, alice.publicKey)).toBe(1_000_000_000n - 100n + 1n);
  });

  it('a DATA_DIR of the former format (chain-a/ledger.bin) is carried over with its balances and history', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'shroud-chaina-fresh-'));
    const old = mkdtempSync(join(tmpdir(), 'shroud-chaina-legacy-'));
    try {
      const before = await LocalChainA.open(fresh);
      const carol = Keypair.generate();
      await before.airdrop(carol.publicKey, SOL);
      await ops.compressNative(before, carol, 250_000_000n);
      await before.close();
      const ledger = ChainStore.load(join(fresh, 'chain-a'), 500).stored.records.flatMap((r) => (r.k === 'tx' ? [r.e] : []));
      // ledger.bin as the former persist wrote it: magic, format 1, snapshot length, snapshot, ledger JSON
      const snapshot = before.snapshot();
      const head = Buffer.alloc(14 + 1 + 8);
      head.write('SHROUD-CHAIN-A');
      head.writeUInt8(1, 14);
      head.writeBigUInt64LE(BigInt(snapshot.length), 15);
      mkdirSync(join(old, 'chain-a'));
      writeFileSync(join(old, 'chain-a', 'ledger.bin'), Buffer.concat([head, snapshot, Buffer.from(JSON.stringify(ledger))]));

      const carried = await LocalChainA.open(old);
      expect(existsSync(join(old, 'chain-a', 'ledger.bin'))).toBe(false);
      expect(await ops.compressedNativeBalance(carried, carol.publicKey)).toBe(250_000_000n);
      expect(await ops.nativeBalance(carried, carol.publicKey)).toBe(await ops.nativeBalance(before, carol.publicKey));
      expect((await carried.rpc.getSignatureStatuses([ledger.at(-1)!.signature])).value[0]?.confirmationStatus).toBe('confirmed');
      await ops.compressNative(carried, carol, 5n);
      await carried.close();
      const again = await LocalChainA.open(old);
      expect(await ops.compressedNativeBalance(again, carol.publicKey)).toBe(250_000_005n);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
      rmSync(old, { recursive: true, force: true });
    }
  });
});
