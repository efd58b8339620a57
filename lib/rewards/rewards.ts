import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { queryInteger } from '#lib/http/validation.ts';
import { chainA, type ChainA } from '#lib/chains/chain-a/index.ts';
import { clock } from '#lib/clock.ts';
import { leaseFor } from '#lib/data/leases.ts';
import * as repo from '#lib/data/rewards-ledger.ts';
import { getMove } from '#lib/data/value-moves.ts';
import { getServiceKey } from '#lib/data/swap-pools.ts';
import { errors } from '#lib/errors.ts';
import { serviceKey } from './service-keys.ts';
import { onChainA } from '#lib/wallets/chain-a-errors.ts';
import { ownedWallet } from '#lib/wallets/wallets.ts';
import { journaled, MoveUnsettled, submitted } from '#lib/moves/journal.ts';
import { buildTree, leafHash } from './merkle.ts';
import { accountOf, closable, epochEnd, epochOf, epochStart, pseudonymOf, REWARD_TOKEN, rewardsConfig, SOURCES } from './rules.ts';

/**
 * Trade-to-earn rewards (docs/rewards.md): the published rule (rules.ts), the user's points and
 * ledger, the pseudonymous leaderboard, the epoch close into a Merkle root, and the claim that
 * pays the reward token on chain A once with the proof of the user's leaf.
 */
export const leaderboardQuery = z.object({ epoch: queryInteger(0, Number.MAX_SAFE_INTEGER).optional() });
export const claimInput = z.object({
  epoch: z
    .number({ error: (i) => (i.input === undefined ? 'is required' : 'must be an integer') })
    .int('must be an integer')
    .min(0),
  walletId: z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .min(1)
    .max(64),
});

const epochView = z.object({
  epoch: z.number(),
  start: z.string(),
  end: z.string(),
  status: z.enum(['open', 'ended', 'closing', 'closed']),
  root: z.string().optional(),
  accounts: z.number().optional(),
  totalPoints: z.number().optional(),
});
export const programView = z.object({
  epochSeconds: z.number(),
  genesis: z.string(),
  currentEpoch: z.number(),
  rules: z.array(z.object({ source: z.string(), rule: z.string() })),
  rewardToken: z.object({ symbol: z.string(), decimals: z.number(), perPoint: z.string(), mint: z.string().optional() }),
  merkle: z.string(),
  epochs: z.array(epochView),
});
export const meView = z.object({
  epoch: z.number(),
  pseudonym: z.string(),
  points: z.number(),
  rank: z.number().nullable(),
  claimable: z.array(z.object({ epoch: z.number(), points: z.number(), amount: z.string(), claimed: z.boolean() })),
});
export const ledgerView = z.object({
  entries: z.array(z.object({ epoch: z.number(), source: z.string(), txHash: z.string(), points: z.number(), basis: z.string(), at: z.string() })),
});
export const leaderboardView = z.object({ epoch: z.number(), entries: z.array(z.object({ rank: z.number(), pseudonym: z.string(), points: z.number() })) });
export const claimView = z.object({
  epoch: z.number(),
  walletId: z.string(),
  address: z.string(),
  points: z.number(),
  amount: z.string(),
  mint: z.string(),
  txHash: z.string(),
  root: z.string(),
  leaf: z.object({ account: z.string(), amount: z.string(), hash: z.string() }),
  proof: z.array(z.string()),
});

const iso = (ms: number) => new Date(ms).toISOString();

async function epochStatus(n: number): Promise<z.infer<typeof epochView>> {
  const close = await repo.getClose(n);
  const base = { epoch: n, start: iso(epochStart(n)), end: iso(epochEnd(n)) };
  if (close) return { ...base, status: close.status, ...(close.root ? { root: close.root, accounts: close.accounts, totalPoints: close.totalPoints } : {}) };
  return { ...base, status: n >= epochOf(clock.nowMs()) ? 'open' : 'ended' };
}

/** The epoch's leaves in account order, with their tree. */
async function treeOf(n: number) {
  const accounts = (await repo.epochAccounts(n)).filter((a) => a.points > 0).sort((a, b) => a.account.localeCompare(b.account));
  const tree = buildTree(accounts.map((a) => leafHash(a.account, BigInt(a.points))));
  return { accounts, tree };
}

/**
 * Closes an ended epoch (after its grace minute): marks it closing (accruals from then on go to
 * the next epoch), then computes and publishes the root. Idempotent; EPOCH_OPEN before the end.
 */
export async function closeEpoch(n: number): Promise<z.infer<typeof epochView>> {
  if (!closable(n, clock.nowMs())) throw errors.epochOpen(`epoch ${n} ends at ${iso(epochEnd(n))} and closes a minute later`);
  const current = await repo.getClose(n);
  if (current?.status === 'closed') return epochStatus(n);
  await repo.startClose(n);
  const { accounts, tree } = await treeOf(n);
  await repo.finishClose(n, {
    root: tree.root,
    accounts: accounts.length,
    totalPoints: accounts.reduce((s, a) => s + a.points, 0),
    closedAt: clock.now().toISOString(),
  });
  return epochStatus(n);
}

/** Closes every ended epoch that has accruals and is not closed yet (the schedule's job). */
export async function closeEndedEpochs(): Promise<number[]> {
  const closed: number[] = [];
  for (const n of await repo.activeEpochs()) {
    if (!closable(n, clock.nowMs())) continue;
    if ((await repo.getClose(n))?.status === 'closed') continue;
    await closeEpoch(n);
    closed.push(n);
  }
  return closed;
}

export async function program(): Promise<z.infer<typeof programView>> {
  const epochs = new Set(await repo.activeEpochs());
  epochs.add(epochOf(clock.nowMs()));
  const treasury = (await getServiceKey(TREASURY))?.mints[REWARD_TOKEN.symbol];
  return {
    epochSeconds: rewardsConfig.REWARDS_EPOCH_SECONDS,
    genesis: rewardsConfig.REWARDS_GENESIS,
    currentEpoch: epochOf(clock.nowMs()),
    rules: SOURCES.map((s) => ({ ...s })),
    rewardToken: {
      symbol: REWARD_TOKEN.symbol,
      decimals: REWARD_TOKEN.decimals,
      perPoint: REWARD_TOKEN.perPoint.toString(),
      ...(treasury ? { mint: treasury } : {}),
    },
    merkle:
      'leaf = SHA-256(0x00 ‖ account (32 bytes) ‖ points (u64 big-endian)); node = SHA-256(0x01 ‖ min(a,b) ‖ max(a,b)); leaves in account order; an odd last node moves up unchanged',
    epochs: await Promise.all([...epochs].sort((a, b) => b - a).map(epochStatus)),
  };
}

export async function leaderboard(epoch: number | undefined): Promise<z.infer<typeof leaderboardView>> {
  const n = epoch ?? epochOf(clock.nowMs());
  const accounts = (await repo.epochAccounts(n)).filter((a) => a.points > 0).sort((a, b) => b.points - a.points || a.account.localeCompare(b.account));
  return { epoch: n, entries: accounts.slice(0, 100).map((a, i) => ({ rank: i + 1, pseudonym: pseudonymOf(a.account), points: a.points })) };
}

export async function me(userId: string): Promise<z.infer<typeof meView>> {
  const account = accountOf(userId);
  const n = epochOf(clock.nowMs());
  const board = (await repo.epochAccounts(n)).filter((a) => a.points > 0).sort((a, b) => b.points - a.points || a.account.localeCompare(b.account));
  const i = board.findIndex((a) => a.account === account);
  const mine = [...new Set((await repo.ledger(userId)).map((e) => e.epoch))].filter((e) => e < n).sort((a, b) => b - a);
  const claimable = [];
  for (const e of mine) {
    const a = await repo.epochAccount(e, account);
    if (!a || a.points <= 0) continue;
    claimable.push({
      epoch: e,
      points: a.points,
      amount: (BigInt(a.points) * REWARD_TOKEN.perPoint).toString(),
      claimed: (await repo.getClaim(e, account))?.status === 'paid',
    });
  }
  return { epoch: n, pseudonym: pseudonymOf(account), points: i >= 0 ? board[i]!.points : 0, rank: i >= 0 ? i + 1 : null, claimable };
}

export async function ledger(userId: string): Promise<z.infer<typeof ledgerView>> {
  return {
    entries: (await repo.ledger(userId)).map((e) => ({ epoch: e.epoch, source: e.source, txHash: e.txHash, points: e.points, basis: e.basis, at: e.at })),
  };
}

// ---- the claim --------------------------------------------------------------------------------

const TREASURY = 'rewards-treasury';
/** Light's and SPL's token programs and web3.js (~1 MB) load with the first claim: the program, ledger and leaderboard functions never read them. */
const chainAOperations = () => import('#lib/chains/chain-a/operations.ts');

/** The treasury key, the reward token's mint authority (set up at the first claim). */
async function treasury(chain: ChainA) {
  const { createMint, mintExists } = await chainAOperations();
  return serviceKey(
    TREASURY,
    (r) => mintExists(chain, r.mints[REWARD_TOKEN.symbol]),
    async (kp) => {
      await chain.airdrop(kp.publicKey, 10n * 10n ** 9n);
      const { mint } = await createMint(chain, kp, REWARD_TOKEN.decimals);
      return { [REWARD_TOKEN.symbol]: mint.toBase58() };
    },
  );
}

/** A request holds a claim's reservation this long before its mint is bound (far past the route's timeout). */
const CLAIM_RESERVE_SECONDS = 60;

/**
 * The claim reserved for this request (its lease's owner); 409 ALREADY_CLAIMED when it is paid, or
 * being paid: reserved under a live lease, or bound to a mint that may still land. A request that
 * died before binding a mint holds it until its lease expires; one that died after binding, until
 * that mint can never land (the journal settled it failed or expired, or it was never recorded and
 * its block height passed).
 */
async function reserve(chain: ChainA, c: repo.ClaimRecord): Promise<string> {
  const owner = randomUUID();
  const mine = { ...c, lease: leaseFor(owner, CLAIM_RESERVE_SECONDS) };
  if (await repo.reserveClaim(mine, clock.nowMs())) return owner;
  const held = await repo.getClaim(c.epoch, c.account);
  if (held?.status === 'paying' && held.txHash && (await cannotLand(chain, held)) && (await repo.retakeClaim(mine, held.txHash))) return owner;
  throw errors.alreadyClaimed();
}

async function cannotLand(chain: ChainA, held: repo.ClaimRecord): Promise<boolean> {
  const move = await getMove(held.txHash!);
  if (move) return move.status === 'failed' || move.status === 'expired';
  const height = held.lastValidBlockHeight;
  return height !== undefined && (await onChainA(() => chain.rpc.getBlockHeight())) > height;
}

export async function claim(userId: string, input: z.infer<typeof claimInput>): Promise<z.infer<typeof claimView> | ReturnType<typeof submitted>> {
  const w = await ownedWallet(userId, input.walletId);
  if (w.chain !== 'a') throw errors.invalidInput('walletId: the reward token is paid on chain A');
  if (!closable(input.epoch, clock.nowMs())) throw errors.epochOpen(`epoch ${input.epoch} is open until ${iso(epochEnd(input.epoch))} (claims a minute after)`);
  const close = await closeEpoch(input.epoch);
  const account = accountOf(userId);
  const { accounts, tree } = await treeOf(input.epoch);
  if (tree.root !== close.root) throw new Error(`epoch ${input.epoch}: the leaves no longer give the published root`);
  const i = accounts.findIndex((a) => a.account === account);
  if (i < 0) throw errors.notFound(`no reward in epoch ${input.epoch}`);
  const points = accounts[i]!.points;
  const chain = await chainA();
  const owner = await reserve(chain, { epoch: input.epoch, account, status: 'paying', walletId: w.id, at: clock.now().toISOString() });
  const amount = BigInt(points) * REWARD_TOKEN.perPoint;
  let sent;
  let mint: string;
  // The mint goes through the value-move journal (lib/moves/journal.ts): once it is recorded, only the
  // chain's word settles the claim — paid when it lands, released when it failed or expired — never a timeout.
  const recorded = { done: false };
  try {
    const key = await onChainA(() => treasury(chain));
    mint = key.record.mints[REWARD_TOKEN.symbol]!;
    const signer = await key.signer();
    const bind = async (txHash: string, height: number) => {
      if (!(await repo.bindClaim(input.epoch, account, owner, txHash, height))) throw errors.alreadyClaimed();
    };
    const via = journaled(chain, { userId, purpose: { kind: 'reward-claim', epoch: input.epoch, account }, recorded, bind });
    const [{ mintTo }, { PublicKey }] = await Promise.all([chainAOperations(), import('@solana/web3.js')]);
    sent = await onChainA(() => mintTo(chain, signer, new PublicKey(mint), new PublicKey(w.address), amount, via));
  } catch (e) {
    if (e instanceof MoveUnsettled) return submitted(chain, e.txHash);
    // Nothing recorded: nothing will be sent. A mint already bound stays until it can no longer land (`reserve`).
    if (!recorded.done) await repo.releaseReservation(input.epoch, account, owner);
    throw e;
  }
  return {
    epoch: input.epoch,
    walletId: w.id,
    address: w.address,
    points,
    amount: amount.toString(),
    mint,
    txHash: sent.signature,
    root: tree.root,
    leaf: { account, amount: String(points), hash: leafHash(account, BigInt(points)).toString('hex') },
    proof: tree.proof(i),
  };
}
