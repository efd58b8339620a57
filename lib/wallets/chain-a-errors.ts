import { ChainRejected, ChainUnavailable } from '#lib/chains/chain-a/index.ts';
import { NotAMint, NotEnough } from '#lib/chains/chain-a/operation-errors.ts';
import { errors, isAppError } from '#lib/errors.ts';
import { logger } from '#lib/log.ts';

/**
 * Chain A's failures as the API's errors: unreachable → 502 RPC_ERROR; not enough funds (checked
 * before sending, or refused by the runtime for fees or rent) → 422 INSUFFICIENT_BALANCE; not a
 * mint → 400 INVALID_MINT; any other refusal by the programs → 422 TRANSACTION_FAILED (the
 * program's error code in the message, its logs in the log only).
 */
/** Light's account-compression error when a V2 tree's output batch is full and not yet inserted. */
const BATCH_NOT_READY = 14301;

export async function onChainA<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (isAppError(e)) throw e;
    if (e instanceof NotEnough) throw errors.insufficientBalance(`insufficient balance: ${e.what} available ${e.have}, needed ${e.need} (smallest units)`);
    if (e instanceof NotAMint) throw errors.invalidMint(`mint: ${e.mint} is not a token mint`);
    if (e instanceof ChainUnavailable) {
      logger.warn('chain A unavailable', { reason: e.message });
      throw errors.rpcError();
    }
    if (e instanceof ChainRejected) {
      logger.info('chain A refused a transaction', { reason: e.message, customCode: e.customCode, logs: e.logs.slice(-20) });
      if (e.insufficientFunds) throw errors.insufficientBalance('insufficient balance to cover the amount and its fees');
      if (e.customCode === BATCH_NOT_READY) {
        throw errors.transactionFailed('the state tree batch is full (BatchNotReady, 14301): no forester runs on this chain to advance it');
      }
      throw errors.transactionFailed(`the chain refused the transaction${e.customCode !== undefined ? ` (program error ${e.customCode})` : ''}`);
    }
    throw e;
  }
}
