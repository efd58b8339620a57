import { randomUUID } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import * as z from 'zod';
import { chainA, ChainRejected } from '#lib/chains/chain-a/index.ts';
import { nativeBalance, NotEnough, tokenBalance } from '#lib/chains/chain-a/operations.ts';
import { clock } from '#lib/clock.ts';
import * as repo from '#lib/data/shielded-pools.ts';
import type { DepositRecord, PoolRecord } from '#lib/data/shielded-pools.ts';
import { errors } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';
import { onChainA } from '#lib/wallets/chain-a-errors.ts';
import { withWalletLock } from '#lib/wallets/lock.ts';
import { chainASigner, ownedWallet } from '#lib/wallets/wallets.ts';
import { assetOf, SIGNATURE_FEE, signedTransfer } from './chain.ts';
import { POOL_SPECS, poolOrThrow } from './pools.ts';
import type { depositInput, DepositView } from './schemas.ts';
import { isFieldElement } from './statement.ts';
import { appendToTree, depositAccrual } from './tree.ts';
import { forgetOwed, noteOwed } from '#lib/rewards/accrue.ts';
import { journaled, MoveUnsettled, submitted } from '#lib/moves/journal.ts';
import { walletConfig } from '#lib/wallets/config.ts';
import { view } from './deposit-views.ts';

/**
 * A deposit: the denomination (native coin, or the pool's token between associated token
 * accounts) from the caller's chain A wallet to the pool account, then the
 * commitment into the pool's tree. The order makes it lossless: the transfer is signed first, the
 * deposit recorded with its signature (and its commitment reserved) before it is sent, marked
 * transferred once confirmed, then appended (tree.ts). A crash or a failure anywhere after the
 * send leaves a record the retry job (retry.ts) finishes: it asks the chain about that very
 * signature. Only the commitment reaches the server; the note stays with the client.
 */

/** Every pool's id: a commitment is reserved across all of them (lib/data/shielded-pools.ts). */
const ALL_POOLS = POOL_SPECS.map((p) => p.id);
const TAKEN = 'commitment: already deposited (in this pool or another: a note is deposited once)';

/** The commitment in canonical form (no leading zeros), or 400 INVALID_COMMITMENT: not a non-zero field element, or already in a pool. */
export async function freshCommitment(commitment: string): Promise<string> {
  if (!isFieldElement(commitment) || BigInt(commitment) === 0n) {
    throw errors.invalidCommitment('commitment: must be a non-zero field element below the BN254 scalar field order');
  }
  const canonical = BigInt(commitment).toString();
  if (await repo.commitmentExists(canonical, ALL_POOLS)) throw errors.invalidCommitment(TAKEN);
  return canonical;
}

/**
 * Records a pending deposit and reserves its commitment, before its transfer is sent: the journal
 * the retry job (retry.ts) finishes from; its reward points are noted as owed then too (lib/rewards
 * records them once the transfer is seen on chain). Also used by swaps whose output is a deposit (lib/swap).
 */
export async function reserveDeposit(pool: PoolRecord, d: DepositRecord): Promise<void> {
  await noteOwed(depositAccrual(pool, d));
  try {
    await repo.insertPendingDeposit(d, ALL_POOLS);
  } catch (e) {
    await forgetOwed(depositAccrual(pool, d));
    if (e instanceof repo.CommitmentTaken) throw errors.invalidCommitment(TAKEN);
    throw e;
  }
}

/** The transfer never landed (refused): the reservation and the owed points go. */
export async function dropDeposit(pool: PoolRecord, d: DepositRecord): Promise<void> {
  await repo.dropPendingDeposit(d);
  await forgetOwed(depositAccrual(pool, d));
}

/** The deposit's transfer landed: marked so, then its commitment appended to the tree. */
export async function completeDeposit(d: DepositRecord): Promise<DepositView> {
  await repo.markDepositTransferred(d);
  const { leafIndex, root } = await appendToTree({ ...d, status: 'transferred' });
  return view({ ...d, status: 'complete', leafIndex, root });
}

/** Sent, and the chain has not settled its transfer yet: the route answers 202 with it (see `deposit`). */
export type DepositSubmitted = ReturnType<typeof submitted>;

/**
 * The transfer goes through the value-move journal (lib/moves/journal.ts) besides the deposit's own
 * record: a transfer the chain has not settled in time answers 202 `submitted`, and the wallet and
 * the request's Idempotency-Key stay bound to it until the chain settles it; the retry job then
 * appends or drops the deposit by the same rule (retry.ts).
 */
export async function deposit(userId: string, input: z.infer<typeof depositInput>): Promise<{ deposit: DepositView } | DepositSubmitted> {
  const pool = await poolOrThrow(input.pool);
  const commitment = await freshCommitment(input.commitment);
  const w = await ownedWallet(userId, input.walletId);
  if (w.chain !== 'a') throw errors.invalidInput('walletId: deposits need a chain A wallet');
  const chain = await chainA();
  const signer = await chainASigner(w);
  const denomination = BigInt(pool.denomination);

  let record: DepositRecord & { slot: number };
  try {
    record = await withWalletLock(w, async (owner) => {
      const asset = assetOf(pool);
      const lamports = await onChainA(() => nativeBalance(chain, signer.publicKey));
      if (asset.mint) {
        const tokens = await onChainA(() => tokenBalance(chain, signer.publicKey, asset.mint));
        if (tokens < denomination)
          throw errors.insufficientBalance(`insufficient balance: ${tokens} of the pool's token (smallest units), the deposit needs ${denomination}`);
        if (lamports < SIGNATURE_FEE) throw errors.insufficientBalance('insufficient balance: the wallet cannot pay the fee');
      } else if (lamports < denomination + SIGNATURE_FEE) {
        throw errors.insufficientBalance(`insufficient balance: ${lamports} lamports, the deposit needs ${denomination} plus the fee`);
      }
      const signed = await onChainA(() => signedTransfer(chain, signer, new PublicKey(pool.address), denomination, asset));
      const d: DepositRecord = {
        id: randomUUID(),
        userId,
        poolId: pool.id,
        walletId: w.id,
        commitment,
        status: 'pending',
        txHash: signed.signature,
        signedTx: signed.bytes,
        lastValidBlockHeight: signed.lastValidBlockHeight,
        createdAt: clock.now().toISOString(),
      };
      await reserveDeposit(pool, d);
      const lease = { walletId: w.id, owner, seconds: walletConfig.WALLET_LOCK_SECONDS };
      const via = journaled(chain, { userId, purpose: { kind: 'wallet-send', operation: 'shielded-deposit', ref: d.id }, lease });
      let slot: number;
      try {
        slot = (await via(signed.tx, signed.lastValidBlockHeight)).slot;
      } catch (e) {
        // Refused: nothing moved, the reservation goes. Anything else: the outcome is unknown and
        // the record stays for the retry job, which asks the chain.
        if (e instanceof ChainRejected || e instanceof NotEnough) await dropDeposit(pool, d);
        else logger.warn('deposit transfer outcome unknown; left to the retry job', { depositId: d.id });
        if (e instanceof MoveUnsettled) throw e;
        return onChainA(() => Promise.reject(e));
      }
      // Landed: from here on nothing fails the request (an error would free its Idempotency-Key, and a
      // retry with it would meet its own commitment, INVALID_COMMITMENT, while the client never got
      // the answer that tells it to keep the note). What is not written now the retry job finishes.
      const status = await repo.markDepositTransferred(d).then(
        () => 'transferred' as const,
        (e: unknown) => {
          logger.warn('deposit landed, not marked transferred; left to the retry job', { depositId: d.id, error: e as Error });
          return 'pending' as const;
        },
      );
      return { ...d, status, slot };
    });
  } catch (e) {
    if (e instanceof MoveUnsettled) return submitted(chain, e.txHash);
    throw e;
  }
  if (record.status !== 'transferred') return { deposit: view(record) };
  try {
    const { leafIndex, root } = await appendToTree(record);
    return { deposit: view({ ...record, status: 'complete', leafIndex, root }) };
  } catch (e) {
    // A busy tree (503) or a store outage: the transfer landed all the same. The deposit stays
    // `transferred` and the answer says so (as a swap's shielded output does); the retry job appends it.
    logger.warn('deposit landed, its append is left to the retry job', { depositId: record.id, error: e as Error });
    return { deposit: view(record) };
  }
}
