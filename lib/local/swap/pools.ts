import { randomUUID } from 'node:crypto';
import { PublicKey, type Keypair } from '@solana/web3.js';
import { chainA, ChainRejected, type ChainA } from '#lib/chains/chain-a/index.ts';
import { createMint, mintExists, mintTo } from '#lib/chains/chain-a/operations.ts';
import { acquirePoolLease, releasePoolLease } from '#lib/data/swap-pools.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { serviceKey, type ServiceKey } from '#lib/rewards/service-keys.ts';
import { checkInput, WSOL } from '#lib/swap/chain.ts';
import { swapConfig } from '#lib/swap/config.ts';
import { priceOrRefuse } from '#lib/swap/pricing.ts';
import type { Executed, Execution, Pair, SwapVenue, Token } from '#lib/swap/venue-port.ts';
import { reserveOf, signedSwap, wrapNative } from './transactions.ts';

/**
 * The swap venue of the embedded default (lib/swap/venue-port.ts): one constant-product pool per
 * pair on the local chain A, its reserves the pool key's associated token accounts. Pools are
 * seeded at first use in a process (and again if the chain under the table is a fresh one): a new
 * pool key gets test coins from the chain's faucet, creates the pair's test token (it is its mint
 * authority), mints the token reserve and wraps the native-coin reserve. Prices are read from the
 * reserves; an execution re-reads them under the pool's lease (one pricing-and-signing at a time
 * per pool, across instances) and signs for the pool only if the output still meets the quote's
 * minimum.
 */
type LocalPair = Pair & { key: ServiceKey };

/** The seeded reserves: 1,000 SOL against 150,000 sUSD (a spot price of 150 sUSD per SOL). */
const SEED = { SOL: 1_000n * 10n ** 9n, sUSD: 150_000n * 10n ** 6n, sUSDdecimals: 6 } as const;
const POOL_NAME = 'swap-pool:SOL-sUSD';
/** Pool lease: held for one pricing-and-send; waited for (with jitter) up to POOL_WAIT_MS. */
const POOL_LEASE_SECONDS = 30;
const POOL_WAIT_MS = 15_000;

async function seedPool(chain: ChainA, kp: Keypair): Promise<Record<string, string>> {
  await chain.airdrop(kp.publicKey, SEED.SOL + 10n * 10n ** 9n);
  const { mint } = await createMint(chain, kp, SEED.sUSDdecimals);
  await mintTo(chain, kp, mint, kp.publicKey, SEED.sUSD);
  await wrapNative(chain, kp, SEED.SOL);
  return { sUSD: mint.toBase58() };
}

let pairsOnce: Promise<LocalPair[]> | undefined;

/** The pairs of this process's chain, seeding the pool at first use. */
function localPairs(): Promise<LocalPair[]> {
  pairsOnce ??= (async () => {
    const chain = await chainA();
    const key = await serviceKey(
      POOL_NAME,
      (r) => mintExists(chain, r.mints.sUSD),
      (kp) => seedPool(chain, kp),
    );
    return [
      {
        pairId: 'SOL-sUSD',
        base: { symbol: 'SOL', mint: WSOL, decimals: 9 },
        quote: { symbol: 'sUSD', mint: new PublicKey(key.record.mints.sUSD!), decimals: SEED.sUSDdecimals },
        feeBps: swapConfig.SWAP_FEE_BPS,
        pool: key.record.address,
        key,
      },
    ];
  })();
  pairsOnce.catch(() => (pairsOnce = undefined));
  return pairsOnce;
}

const matches = (t: Token, s: string) => t.symbol.toLowerCase() === s.toLowerCase() || t.mint.toBase58() === s;

async function findPair(from: string, to: string): Promise<{ pair: LocalPair; tokenIn: Token; tokenOut: Token }> {
  for (const pair of await localPairs()) {
    if (matches(pair.base, from) && matches(pair.quote, to)) return { pair, tokenIn: pair.base, tokenOut: pair.quote };
    if (matches(pair.quote, from) && matches(pair.base, to)) return { pair, tokenIn: pair.quote, tokenOut: pair.base };
  }
  throw errors.unsupportedPair(`no pool for ${from} → ${to}; GET /api/swap/pairs lists the pairs`);
}

async function reserves(pair: Pair, tokenIn: Token, tokenOut: Token) {
  const chain = await chainA();
  const pool = new PublicKey(pair.pool);
  const [reserveIn, reserveOut] = await Promise.all([reserveOf(chain, pool, tokenIn.mint), reserveOf(chain, pool, tokenOut.mint)]);
  return { reserveIn, reserveOut };
}

async function withPoolLease<T>(pairId: string, fn: () => Promise<T>): Promise<T> {
  const owner = randomUUID();
  if (!(await acquirePoolLease(pairId, owner, POOL_LEASE_SECONDS, POOL_WAIT_MS))) throw errors.serviceUnavailable(1, 'the pool is busy; retry');
  let result: { value: T } | undefined;
  try {
    result = { value: await fn() };
    return result.value;
  } finally {
    // After a result (the swap landed) a failed release must not become the request's error: the
    // lease lapses by itself after POOL_LEASE_SECONDS, and an error would mark a landed order failed
    // and free the Idempotency-Key of a transaction that moved value (as for the wallet's lease:
    // lib/wallets/lock.ts).
    if (result) {
      await releasePoolLease(pairId, owner).catch((e: unknown) =>
        logger.warn('swap pool lease not released after a landed swap; it lapses by itself', { pairId, error: e as Error }),
      );
    } else await releasePoolLease(pairId, owner);
  }
}

async function execute(x: Execution): Promise<Executed> {
  const { pair, tokenIn, tokenOut } = await findPair(x.from, x.to);
  if (pair.pairId !== x.pairId) throw errors.unsupportedPair("the quote's pool is gone");
  const chain = await chainA();
  return withPoolLease(pair.pairId, async () => {
    const r = await reserves(pair, tokenIn, tokenOut);
    const priced = priceOrRefuse(r, x.amountIn, pair.feeBps);
    if (priced.amountOut < x.minAmountOut) {
      throw errors.slippageExceeded(
        `the pool now gives ${priced.amountOut}, below the quote's minimum ${x.minAmountOut} (smallest units); ask for a new quote`,
      );
    }
    await checkInput(chain, { owner: x.user.publicKey, fromMint: tokenIn.mint, amountIn: x.amountIn });
    if (x.shielded && priced.amountOut < x.shielded.units)
      throw errors.slippageExceeded("the pool now gives less than the deposit's denomination; ask for a new quote");
    const signed = await signedSwap(chain, {
      user: x.user,
      pool: await pair.key.signer(),
      recipient: x.recipient,
      fromMint: tokenIn.mint,
      fromDecimals: tokenIn.decimals,
      toMint: tokenOut.mint,
      toDecimals: tokenOut.decimals,
      amountIn: x.amountIn,
      amountOut: priced.amountOut,
      ...(x.shielded ? { deposit: { to: x.shielded.to, units: x.shielded.units } } : {}),
    });
    await x.journal?.beforeSend(signed.signature, priced.amountOut);
    await x.shielded?.record(signed.signature);
    let sent;
    try {
      sent = x.via ? await x.via(priced.amountOut)(signed.tx, signed.lastValidBlockHeight) : await chain.sendAndConfirm(signed.tx);
    } catch (e) {
      // Refused: nothing moved. Anything else: the outcome is unknown; the deposit's record stays
      // for the transfer retry job, which asks the chain about this signature.
      if (e instanceof ChainRejected) await Promise.all([x.shielded?.refused(), x.journal?.refused()]);
      throw e;
    }
    return { ...sent, amountOut: priced.amountOut, fee: priced.fee, reservesBefore: r };
  });
}

/** The local pools as the swap service sees them (the venue port). */
export const localSwapVenue: SwapVenue = { pairs: localPairs, findPair, reserves, execute };
