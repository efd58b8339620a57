import { bn, buildAndSignTx, LightSystemProgram, selectMinCompressedSolAccountsForTransfer, selectStateTreeInfo } from '@lightprotocol/stateless.js';
import { ComputeBudgetProgram, type Keypair, type PublicKey, type TransactionInstruction, type VersionedTransaction } from '@solana/web3.js';
import { NotEnough } from './operation-errors.ts';
import type { ChainA, SentTransaction } from './port.ts';

/**
 * The chain A operations on the native coin and the balance reads, which need only stateless.js
 * and web3.js: lib/compression/compression.ts imports these at init and the token operations
 * (operations.ts, with Light's compressed-token and spl-token) on the first request that moves a
 * token, so compress-native, decompress-native and the balances do not parse those libraries at
 * their cold start. operations.ts re-exports everything here.
 */

/**
 * How a built and signed transaction reaches the chain: by default straight through the port; a
 * value move passes the journal's (lib/moves/journal.ts), which records it with its blockhash's
 * last valid block height before sending it.
 */
export type Sender = (tx: VersionedTransaction, lastValidBlockHeight: number) => Promise<SentTransaction>;

/** Builds, signs and sends one transaction (the token operations in operations.ts send through it too). */
export async function send(chain: ChainA, payer: Keypair, ixs: TransactionInstruction[], extraSigners: Keypair[] = [], via?: Sender): Promise<SentTransaction> {
  const { blockhash, lastValidBlockHeight } = await chain.rpc.getLatestBlockhash();
  const tx = buildAndSignTx(ixs, payer, blockhash, extraSigners);
  return via ? via(tx, lastValidBlockHeight) : chain.sendAndConfirm(tx);
}

export const units = (n: number) => ComputeBudgetProgram.setComputeUnitLimit({ units: n });

export async function nativeBalance(chain: ChainA, owner: PublicKey): Promise<bigint> {
  return BigInt(await chain.rpc.getBalance(owner));
}

export async function compressedNativeBalance(chain: ChainA, owner: PublicKey): Promise<bigint> {
  return BigInt((await chain.rpc.getCompressedBalanceByOwner(owner)).toString());
}

export async function compressedTokenBalance(chain: ChainA, owner: PublicKey, mint: PublicKey): Promise<bigint> {
  const accounts = await chain.rpc.getCompressedTokenAccountsByOwner(owner, { mint });
  return accounts.items.reduce((sum, a) => sum + BigInt(a.parsed.amount.toString()), 0n);
}

// ---- native coin ----------------------------------------------------------------------------

export async function compressNative(chain: ChainA, signer: Keypair, lamports: bigint, via?: Sender): Promise<SentTransaction> {
  const ix = await LightSystemProgram.compress({
    payer: signer.publicKey,
    toAddress: signer.publicKey,
    lamports: bn(lamports.toString()),
    outputStateTreeInfo: selectStateTreeInfo(await chain.rpc.getStateTreeInfos()),
  });
  return send(chain, signer, [units(1_000_000), ix], [], via);
}

export async function decompressNative(chain: ChainA, signer: Keypair, lamports: bigint, via?: Sender): Promise<SentTransaction> {
  const accounts = (await chain.rpc.getCompressedAccountsByOwner(signer.publicKey)).items;
  const have = accounts.reduce((s, a) => s + BigInt(a.lamports.toString()), 0n);
  if (have < lamports) throw new NotEnough('compressed lamports', have, lamports);
  const [inputs] = selectMinCompressedSolAccountsForTransfer(accounts, bn(lamports.toString()));
  const proof = await chain.rpc.getValidityProof(inputs.map((a) => bn(a.hash)));
  const ix = await LightSystemProgram.decompress({
    payer: signer.publicKey,
    toAddress: signer.publicKey,
    inputCompressedAccounts: inputs,
    recentValidityProof: proof.compressedProof,
    recentInputStateRootIndices: proof.rootIndices,
    lamports: bn(lamports.toString()),
  });
  return send(chain, signer, [units(1_000_000), ix], [], via);
}
