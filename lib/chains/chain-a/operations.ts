import { bn, selectStateTreeInfo } from '@lightprotocol/stateless.js';
import {
  CompressedTokenProgram,
  getSplInterfaceInfos,
  selectAccountsByPreferredTreeType,
  selectMinCompressedTokenAccountsForTransfer,
  selectSplInterfaceInfo,
  selectSplInterfaceInfosForDecompression,
} from '@lightprotocol/compressed-token';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_PROGRAM_ID,
  unpackAccount,
  unpackMint,
} from '@solana/spl-token';
import { Keypair, PublicKey } from '@solana/web3.js';
import type { ChainA, SentTransaction } from './port.ts';

/**
 * The chain A operations of the service, each one transaction built by Light Protocol's and
 * Solana's SDKs exactly as their own actions build it (same instructions, same compute limits),
 * then sent through the port. The programs decide what is valid; the checks here only turn a
 * doomed request into a clear answer before any fee is paid.
 *
 * Amounts are bigint smallest units throughout.
 */

import { NotAMint, NotEnough } from './operation-errors.ts';
import { send, type Sender, units } from './native-operations.ts';

export { NotAMint, NotEnough };
/** The native coin's operations and the balance reads (native-operations.ts), here with the token operations. */
export * from './native-operations.ts';

// ---- reads ----------------------------------------------------------------------------------

export async function mintInfo(chain: ChainA, mint: PublicKey): Promise<{ decimals: number; authority: PublicKey | null }> {
  const info = await chain.rpc.getAccountInfo(mint);
  if (!info || !info.owner.equals(TOKEN_PROGRAM_ID) || info.data.length !== MINT_SIZE) throw new NotAMint(mint.toBase58());
  const m = unpackMint(mint, info, TOKEN_PROGRAM_ID);
  return { decimals: m.decimals, authority: m.mintAuthority };
}

/** Whether `mint` (base58) is a token mint on this chain: a service key's mint may be gone with a fresh chain under its table. */
export async function mintExists(chain: ChainA, mint: string | undefined): Promise<boolean> {
  if (!mint) return false;
  try {
    await mintInfo(chain, new PublicKey(mint));
    return true;
  } catch (e) {
    if (e instanceof NotAMint) return false;
    throw e;
  }
}

/** The owner's ordinary token balance: its associated token account (0 when there is none). */
export async function tokenBalance(chain: ChainA, owner: PublicKey, mint: PublicKey): Promise<bigint> {
  const ata = getAssociatedTokenAddressSync(mint, owner, true);
  const info = await chain.rpc.getAccountInfo(ata);
  return info ? unpackAccount(ata, info, TOKEN_PROGRAM_ID).amount : 0n;
}

// ---- tokens ---------------------------------------------------------------------------------

/** A new SPL mint with its compression pool; `signer` pays and is the mint authority. */
export async function createMint(chain: ChainA, signer: Keypair, decimals: number, via?: Sender): Promise<{ mint: PublicKey } & SentTransaction> {
  const mint = Keypair.generate();
  const ixs = await CompressedTokenProgram.createMint({
    feePayer: signer.publicKey,
    mint: mint.publicKey,
    decimals,
    authority: signer.publicKey,
    freezeAuthority: null,
    rentExemptBalance: await chain.rpc.getMinimumBalanceForRentExemption(MINT_SIZE),
    tokenProgramId: TOKEN_PROGRAM_ID,
  });
  const sent = await send(chain, signer, ixs, [mint], via);
  return { mint: mint.publicKey, ...sent };
}

/** Ordinary SPL tokens into `to`'s associated token account (created when missing). */
export async function mintTo(chain: ChainA, authority: Keypair, mint: PublicKey, to: PublicKey, amount: bigint, via?: Sender): Promise<SentTransaction> {
  const ata = getAssociatedTokenAddressSync(mint, to, true);
  return send(
    chain,
    authority,
    [createAssociatedTokenAccountIdempotentInstruction(authority.publicKey, ata, to, mint), createMintToInstruction(mint, ata, authority.publicKey, amount)],
    [],
    via,
  );
}

/** From the signer's associated token account into a compressed token account of its own. */
export async function compressToken(chain: ChainA, signer: Keypair, mint: PublicKey, amount: bigint, via?: Sender): Promise<SentTransaction> {
  const have = await tokenBalance(chain, signer.publicKey, mint);
  if (have < amount) throw new NotEnough('tokens', have, amount);
  const ix = await CompressedTokenProgram.compress({
    payer: signer.publicKey,
    owner: signer.publicKey,
    source: getAssociatedTokenAddressSync(mint, signer.publicKey, true),
    toAddress: signer.publicKey,
    amount: bn(amount.toString()),
    mint,
    outputStateTreeInfo: selectStateTreeInfo(await chain.rpc.getStateTreeInfos()),
    tokenPoolInfo: selectSplInterfaceInfo(await getSplInterfaceInfos(chain.rpc, mint)),
  });
  return send(chain, signer, [units(150_000), ix], [], via);
}

async function tokenInputs(chain: ChainA, owner: PublicKey, mint: PublicKey, amount: bigint) {
  const accounts = (await chain.rpc.getCompressedTokenAccountsByOwner(owner, { mint })).items;
  const have = accounts.reduce((s, a) => s + BigInt(a.parsed.amount.toString()), 0n);
  if (have < amount) throw new NotEnough('compressed tokens', have, amount);
  const { accounts: preferred } = selectAccountsByPreferredTreeType(accounts, bn(amount.toString()));
  const [inputs] = selectMinCompressedTokenAccountsForTransfer(preferred, bn(amount.toString()));
  const proof = await chain.rpc.getValidityProofV0(
    inputs.map((a) => ({ hash: a.compressedAccount.hash, tree: a.compressedAccount.treeInfo.tree, queue: a.compressedAccount.treeInfo.queue })),
  );
  return { inputs, proof };
}

/** From compressed token accounts back into the signer's associated token account. */
export async function decompressToken(chain: ChainA, signer: Keypair, mint: PublicKey, amount: bigint, via?: Sender): Promise<SentTransaction> {
  const { inputs, proof } = await tokenInputs(chain, signer.publicKey, mint, amount);
  const ata = getAssociatedTokenAddressSync(mint, signer.publicKey, true);
  const ix = await CompressedTokenProgram.decompress({
    payer: signer.publicKey,
    inputCompressedTokenAccounts: inputs,
    toAddress: ata,
    amount: bn(amount.toString()),
    tokenPoolInfos: selectSplInterfaceInfosForDecompression(await getSplInterfaceInfos(chain.rpc, mint), bn(amount.toString())),
    recentInputStateRootIndices: proof.rootIndices,
    recentValidityProof: proof.compressedProof,
  });
  return send(chain, signer, [units(350_000), createAssociatedTokenAccountIdempotentInstruction(signer.publicKey, ata, signer.publicKey, mint), ix], [], via);
}

/** Compressed tokens from the signer to `to` (any address). */
export async function transferCompressed(
  chain: ChainA,
  signer: Keypair,
  mint: PublicKey,
  to: PublicKey,
  amount: bigint,
  via?: Sender,
): Promise<SentTransaction> {
  const { inputs, proof } = await tokenInputs(chain, signer.publicKey, mint, amount);
  const ix = await CompressedTokenProgram.transfer({
    payer: signer.publicKey,
    inputCompressedTokenAccounts: inputs,
    toAddress: to,
    amount: bn(amount.toString()),
    recentInputStateRootIndices: proof.rootIndices,
    recentValidityProof: proof.compressedProof,
  });
  return send(chain, signer, [units(500_000), ix], [], via);
}
