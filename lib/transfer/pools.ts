import type { Keypair } from '@solana/web3.js';
import { chainA } from '#lib/chains/chain-a/index.ts';
import { clock } from '#lib/clock.ts';
import * as repo from '#lib/data/shielded-pools.ts';
import type { PoolRecord } from '#lib/data/shielded-pools.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { keyVault } from '#lib/wallets/config.ts';
import { openKey, sealKey } from '#lib/wallets/custody.ts';
import { chainAKeypair } from '#lib/wallets/keys.ts';
import { emptyTree, poseidonHash2 } from '#lib/zk/merkle.ts';
import { TEST_TOKEN_DECIMALS } from './config.ts';

/**
 * The pools: one token at one denomination each (the native coin, or the test token on localnet and devnet), its funds in a chain A account whose key the
 * service holds sealed exactly like a wallet key (envelope encryption, lib/wallets/custody.ts,
 * with `pool:<id>` and the address as associated data). A pool is created at first use by
 * whichever instance gets there first (a conditional put), and on localnet and devnet its
 * account gets a fee reserve from the faucet: the pool pays the network fee of every payout.
 */
export interface PoolSpec {
  id: string;
  /** `SOL`, or `TEST`: the test SPL token the service mints on localnet and devnet (test-token.ts). */
  token: 'SOL' | 'TEST';
  decimals: number;
  /** Smallest units. */
  denomination: bigint;
}

export const POOL_SPECS: PoolSpec[] = [
  { id: 'sol-0.1', token: 'SOL', decimals: 9, denomination: 100_000_000n },
  { id: 'sol-1', token: 'SOL', decimals: 9, denomination: 1_000_000_000n },
  { id: 'sol-10', token: 'SOL', decimals: 9, denomination: 10_000_000_000n },
  { id: 'test-100', token: 'TEST', decimals: TEST_TOKEN_DECIMALS, denomination: 100n * 10n ** BigInt(TEST_TOKEN_DECIMALS) },
  { id: 'test-1000', token: 'TEST', decimals: TEST_TOKEN_DECIMALS, denomination: 1_000n * 10n ** BigInt(TEST_TOKEN_DECIMALS) },
];

/** Lamports the faucet puts in a new pool account for payout fees (and its rent exemption). */
export const POOL_FEE_RESERVE = 1_000_000_000n;

const sealId = (poolId: string) => `pool:${poolId}`;

async function createPool(spec: PoolSpec, mint: string | undefined): Promise<void> {
  const key = (await import('@solana/web3.js')).Keypair.generate();
  const address = key.publicKey.toBase58();
  const tree = emptyTree(await poseidonHash2());
  try {
    await repo.createPool({
      id: spec.id,
      token: spec.token,
      ...(mint ? { mint } : {}),
      decimals: spec.decimals,
      denomination: spec.denomination.toString(),
      address,
      sealedKey: await sealKey(keyVault(), sealId(spec.id), address, key.secretKey),
      createdAt: clock.now().toISOString(),
      size: 0,
      root: tree.root.toString(),
      filled: tree.filled.map(String),
      roots: [tree.root.toString()],
    });
  } finally {
    key.secretKey.fill(0);
  }
}

async function fund(pool: PoolRecord): Promise<void> {
  const chain = await chainA();
  if (chain.network === 'mainnet') return; // the operator funds it
  const { PublicKey } = await import('@solana/web3.js');
  await chain.airdrop(new PublicKey(pool.address), POOL_FEE_RESERVE);
  await repo.markPoolFunded(pool.id);
}

let ready: Promise<void> | undefined;

/** Every pool exists and has its reserve (once per process; a failure is retried by the next call). */
export function ensurePools(): Promise<void> {
  ready ??= (async () => {
    for (const spec of POOL_SPECS) {
      let pool = await repo.getPool(spec.id);
      if (!pool) {
        const mint = spec.token === 'TEST' ? await (await import('./test-token.ts')).ensureTestToken() : undefined;
        if (spec.token === 'TEST' && !mint) continue; // no test token on mainnet: no token pools
        await createPool(spec, mint?.mint);
        pool = (await repo.getPool(spec.id))!;
      }
      if (!pool.funded) {
        await fund(pool).catch((e: unknown) => logger.warn('pool fee reserve not funded', { pool: spec.id, error: e as Error }));
      }
    }
  })();
  ready.catch(() => (ready = undefined));
  return ready;
}

/** The pool, or 404 POOL_NOT_FOUND. */

export async function poolOrThrow(poolId: string): Promise<PoolRecord> {
  await ensurePools();
  const pool = POOL_SPECS.some((s) => s.id === poolId) ? await repo.getPool(poolId) : undefined;
  if (!pool) throw errors.poolNotFound(`pool not found: ${poolId.slice(0, 64)}`);
  return pool;
}

/** The pool account's signer, for the length of one payout. */
export async function poolSigner(pool: PoolRecord): Promise<Keypair> {
  const secret = await openKey(keyVault(), sealId(pool.id), pool.address, pool.sealedKey);
  try {
    return await chainAKeypair(Uint8Array.from(secret));
  } finally {
    secret.fill(0);
  }
}
