import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressNative, nativeBalance, compressedNativeBalance } from '#lib/chains/chain-a/operations.ts';
import { ChainRejected, ChainUnavailable } from '#lib/chains/chain-a/port.ts';
import { RpcChainA } from '#lib/chains/chain-a/rpc.ts';
import { LocalChainA } from '#lib/local/chain-a/chain.ts';
import { startChainARpc, type ChainARpcServer } from '#lib/local/chain-a/json-rpc.ts';

/**
 * The embedded chain A behind its loopback JSON-RPC front (lib/local/chain-a/json-rpc.ts), read
 * and written by the rpc adapter a deployed stage uses (lib/chains/chain-a/rpc.ts): what the
 * asset mode's functions do.
 */
let local: LocalChainA;
let front: ChainARpcServer;
let rpc: RpcChainA;

beforeAll(async () => {
  local = await LocalChainA.open(undefined);
  front = await startChainARpc(local);
  rpc = new RpcChainA({ network: 'localnet', rpcUrl: front.url, indexerUrl: front.url, proverUrl: front.url, pollMs: 20 });
}, 120_000);
afterAll(async () => {
  await front?.stop();
  await local?.close();
});

describe('chain A over the loopback JSON-RPC front', () => {
  it('airdrops, then a compression signed by the wallet lands: exact balances on both sides', async () => {
    const wallet = Keypair.generate();
    const drop = await rpc.airdrop(wallet.publicKey, 2_000_000_000n);
    expect(drop.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/);
    expect(await nativeBalance(rpc, wallet.publicKey)).toBe(2_000_000_000n);

    const sent = await compressNative(rpc, wallet, 1_500_000_000n);
    expect(await compressedNativeBalance(rpc, wallet.publicKey)).toBe(1_500_000_000n);
    // the wallet paid the fees (the signature's and the tree's), and getTransaction reads its fee (lib/rewards/accrue.ts)
    const paid = 500_000_000n - (await nativeBalance(rpc, wallet.publicKey));
    expect(paid).toBeGreaterThan(0n);
    expect(paid).toBeLessThan(100_000n);
    const tx = await rpc.rpc.getTransaction(sent.signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(tx?.transaction.message.staticAccountKeys[0]?.toBase58()).toBe(wallet.publicKey.toBase58());
    expect(tx!.meta!.fee).toBe(5_000);
  });

  it('a transaction the chain refuses answers as a preflight does: ChainRejected, missing funds named', async () => {
    const poor = Keypair.generate();
    const refused = await compressNative(rpc, poor, 1_000n).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ChainRejected);
    expect((refused as ChainRejected).insufficientFunds).toBe(true);
  });

  it('what it does not serve is ChainUnavailable (RPC_ERROR), not a wrong answer', async () => {
    const e = await rpc.rpc.getCompressedAccountsByOwner(Keypair.generate().publicKey).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ChainUnavailable);
    expect(String((e as Error).message)).toMatch(/not found|Method/i);
  });
});
