import { buildAndSignTx } from '@lightprotocol/stateless.js';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import { PublicKey, SystemProgram, TransactionInstruction, type Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import type { ChainA } from '#lib/chains/chain-a/index.ts';
import { heightBound, settle } from '#lib/chains/chain-a/settle.ts';
import { clock } from '#lib/clock.ts';
import { claimRelease, readRelease, stampReleaseHeight } from '#lib/data/bridge-releases.ts';
import { serviceKey } from '#lib/rewards/service-keys.ts';
import { MEMO_PROGRAM_ID } from './chain-a-source.ts';
import type { HyperlaneToken } from './routes.ts';

/**
 * The destination side of a chain B → chain A withdrawal: what the warp route's program does when
 * the Mailbox delivers the message — it releases the amount from its collateral to the
 * recipient — done here by the service's escrow key (the service key `bridge-escrow`, sealed like
 * wallet keys: KMS on AWS), since the Hyperlane programs do not run on the local chain A. The
 * native coin is a System transfer, an SPL collateral a TransferChecked from the escrow's
 * associated token account (the recipient's created if missing); each with the SPL Memo
 * `shroud-release:<message id>`. On localnet the escrow account is funded once from the faucet
 * with LOCAL_COLLATERAL, and its token account of an SPL route credited once with
 * LOCAL_TOKEN_COLLATERAL (lib/local/chain-a/chain.ts; both stand for what the deposits locked);
 * elsewhere the operator funds it.
 *
 * Exactly once per message id (lib/data/bridge-releases.ts): the signed transaction and its last
 * valid block height are recorded before it is sent; a later pass finds it on chain, or resends the
 * very same bytes, and builds a new one only once the chain settled the old one failed, or expired
 * past that height with no status in the history (lib/chains/chain-a/settle.ts, the value-move
 * journal's rule). A resend refused with BlockhashNotFound decides nothing: a node behind the
 * cluster answers that for a blockhash the cluster still takes.
 */
export const ESCROW_KEY_NAME = 'bridge-escrow';
export const LOCAL_COLLATERAL = 1_000n * 10n ** 9n;

export const releaseMemo = (messageId: string) => `shroud-release:${messageId}`;

async function escrowKey(chain: ChainA) {
  return serviceKey(
    ESCROW_KEY_NAME,
    async (r) => chain.network !== 'localnet' || (await chain.rpc.getAccountInfo(new PublicKey(r.address))) !== null,
    async (kp) => {
      if (chain.network === 'localnet') await chain.airdrop(kp.publicKey, LOCAL_COLLATERAL);
      return {};
    },
  );
}

/** The escrow's address on chain A (set up at first use). */
export async function escrowAddress(chain: ChainA): Promise<PublicKey> {
  return new PublicKey((await escrowKey(chain)).record.address);
}

function releaseInstructions(escrow: PublicKey, route: HyperlaneToken, to: PublicKey, amount: bigint, messageId: string): TransactionInstruction[] {
  const memo = new TransactionInstruction({
    programId: MEMO_PROGRAM_ID,
    keys: [{ pubkey: escrow, isSigner: true, isWritable: false }],
    data: Buffer.from(releaseMemo(messageId), 'utf8'),
  });
  if (!route.originMint) return [SystemProgram.transfer({ fromPubkey: escrow, toPubkey: to, lamports: amount }), memo];
  const mint = new PublicKey(route.originMint);
  const destination = getAssociatedTokenAddressSync(mint, to, true);
  return [
    createAssociatedTokenAccountIdempotentInstruction(escrow, destination, to, mint),
    createTransferCheckedInstruction(
      getAssociatedTokenAddressSync(mint, escrow, true),
      mint,
      destination,
      escrow,
      amount,
      route.decimals,
      [],
      TOKEN_PROGRAM_ID,
    ),
    memo,
  ];
}

/**
 * Releases `amount` to `to` for the message `messageId`, at most once. Answers the release's
 * signature once it is on chain A, or undefined when another relayer holds the release (the
 * next pass sees its outcome). Throws (ChainRejected, …) when this attempt failed or is not
 * settled yet: retried on the next pass, never doubled. A stored release is replaced only once
 * the chain settled it failed or expired (lib/chains/chain-a/settle.ts: history searched, so a
 * release that landed long ago is never taken for one that never did).
 */
export async function releaseWithdrawal(
  chain: ChainA,
  args: { bridgeId: string; messageId: string; route: HyperlaneToken; to: string; amount: bigint },
): Promise<string | undefined> {
  const prior = await readRelease(args.messageId);
  if (prior) {
    // A release recorded before heights were kept gets a bound first (never earlier than its real one).
    if (prior.lastValidBlockHeight === undefined) {
      await stampReleaseHeight(args.messageId, prior.signature, await heightBound(chain));
      throw new Error(`release ${prior.signature} had no last valid block height; one is recorded now, settled on the next pass`);
    }
    const seen = await settle(chain, { signature: prior.signature, bytes: prior.transaction, lastValidBlockHeight: prior.lastValidBlockHeight });
    if (seen.kind === 'landed') return prior.signature;
    if (seen.kind === 'pending') throw new Error(`release ${prior.signature} is not settled yet`);
    // failed or expired: that transaction moved nothing; a new one replaces it below.
  }
  const key = await escrowKey(chain);
  const escrow: Keypair = await key.signer();
  // The embedded chain's collateral (ChainA.prepareReleaseCollateral; a live cluster does nothing).
  if (args.route.originMint) await chain.prepareReleaseCollateral(new PublicKey(args.route.originMint), args.route.decimals, escrow.publicKey);
  const { blockhash, lastValidBlockHeight } = await chain.rpc.getLatestBlockhash();
  const tx = buildAndSignTx(releaseInstructions(escrow.publicKey, args.route, new PublicKey(args.to), args.amount, args.messageId), escrow, blockhash);
  const signature = bs58.encode(tx.signatures[0]!);
  const transaction = Buffer.from(tx.serialize()).toString('base64');
  const attempt = { bridgeId: args.bridgeId, signature, transaction, lastValidBlockHeight, at: clock.now().toISOString() };
  if (!(await claimRelease(args.messageId, attempt, prior?.signature))) return undefined;
  await chain.sendAndConfirm(tx);
  return signature;
}
