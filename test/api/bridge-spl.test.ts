import { Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { ok, settled } from './bridge-helpers.ts';
import { signedInUser } from './identity-helpers.ts';

// lib modules that read configuration at load: imported once the runtime has set it (beforeAll).
let chainA: typeof import('#lib/chains/chain-a/index.ts').chainA;
let tokenBalance: typeof import('#lib/chains/chain-a/operations.ts').tokenBalance;
let chainb: typeof import('#lib/chains/chain-b/index.ts');
let escrowAccount: typeof import('#lib/bridge/chain-a-source.ts').escrowAccount;
let escrowAddress: typeof import('#lib/bridge/chain-a-release.ts').escrowAddress;
let DREAMS: import('#lib/bridge/routes.ts').HyperlaneToken;
let spl: typeof import('@solana/spl-token');

/**
 * An SPL collateral route (DREAMS, 6 decimals, `SealevelHypCollateral`) both ways over HTTP
 * against the local runtime. The embedded chain A starts with the route's mint at its mainnet
 * address and the warp route's escrow token account (ChainA.prepareRoute: lib/local/chain-a/chain.ts), as mainnet
 * has them; the test gives the wallet its tokens with the local chain's token faucet. Everything
 * after that is signed transactions: the deposit's TransferChecked into the escrow, the synthetic
 * token minted on the local chain B ledger, the withdrawal's burn, and the release's
 * TransferChecked from the release escrow to the recipient's associated token account.
 */
let rt: TestRuntime;
let alice: HttpClient;
let walletA: { id: string; address: string };
let walletB: { id: string; address: string };
const PASS = 'spl-bridge-pass-1';

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '50' });
  ({ chainA } = await import('#lib/chains/chain-a/index.ts'));
  ({ tokenBalance } = await import('#lib/chains/chain-a/operations.ts'));
  chainb = await import('#lib/chains/chain-b/index.ts');
  ({ escrowAccount } = await import('#lib/bridge/chain-a-source.ts'));
  ({ escrowAddress } = await import('#lib/bridge/chain-a-release.ts'));
  spl = await import('@solana/spl-token');
  DREAMS = (await import('#lib/bridge/routes.ts')).routeToken('chaina-chainb', 'DREAMS')!;
  alice = rt.client();
  await signedInUser(alice);
  walletA = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  walletB = (await alice.post('/api/wallets', { chain: 'b', name: 'main', password: PASS })).json.wallet;
  ok(await alice.post(`/api/wallets/${walletA.id}/airdrop`, { amount: 2 })); // SOL for the fees
  ok(await alice.post(`/api/wallets/${walletB.id}/airdrop`, { amount: 10 })); // STRK for the fees
}, 120_000);
afterAll(async () => rt?.stop());
beforeEach(() => advanceClock(61_000));

const mint = () => new PublicKey(DREAMS.originMint!);
const held = async (owner: string) => tokenBalance(await chainA(), new PublicKey(owner), mint());
const synthetic = (holder: string) => chainb.balanceOf(DREAMS.destinationToken, holder);

/** The local chain's token faucet: what an exchange withdrawal would be on mainnet. */
async function giveTokens(owner: string, units: bigint) {
  const chain = await chainA();
  await chain.localTokens!.ensureMint(mint(), DREAMS.decimals);
  await chain.localTokens!.credit(mint(), spl.getAssociatedTokenAddressSync(mint(), new PublicKey(owner), true), new PublicKey(owner), units);
}

/** What a token account holds (0 when it does not exist). */
async function amountIn(account: PublicKey): Promise<bigint> {
  const info = await (await chainA()).rpc.getAccountInfo(account);
  return info ? spl.unpackAccount(account, info).amount : 0n;
}

describe('an SPL collateral route (DREAMS) on the local chains', () => {
  it("deposit from the caller's chain A wallet: the tokens locked in the warp route's escrow, the synthetic minted on chain B", async () => {
    await giveTokens(walletA.address, 10_000_000n); // 10 DREAMS
    const escrow = escrowAccount(DREAMS);
    const lockedBefore = await amountIn(escrow);

    const res = ok(
      await alice.post('/api/bridge/initiate', {
        bridgeType: 'chaina-chainb',
        direction: 'deposit',
        token: 'DREAMS',
        amount: '2.5',
        destAddress: walletB.address,
        walletId: walletA.id,
      }),
    );
    expect(res.transaction).toMatchObject({ token: 'DREAMS', amount: '2.5', status: 'submitted' });
    expect(await held(walletA.address)).toBe(7_500_000n);
    expect((await amountIn(escrow)) - lockedBefore).toBe(2_500_000n);

    const done = await settled(alice, res.transaction.id);
    expect(done.status, done.failureReason).toBe('completed');
    expect(await synthetic(walletB.address)).toBe(2_500_000n);
  });

  it('more than the wallet holds: 422 INSUFFICIENT_BALANCE, nothing moved, no record', async () => {
    const before = await held(walletA.address);
    const records = (await alice.get('/api/bridge/history')).json.transactions.length;
    const res = await alice.post('/api/bridge/initiate', {
      bridgeType: 'chaina-chainb',
      direction: 'deposit',
      token: 'DREAMS',
      amount: '500',
      destAddress: walletB.address,
      walletId: walletA.id,
    });
    expect(res.status, JSON.stringify(res.json)).toBe(422);
    expect(res.json.error).toBe('INSUFFICIENT_BALANCE');
    expect(await held(walletA.address)).toBe(before);
    expect((await alice.get('/api/bridge/history')).json.transactions).toHaveLength(records); // refused before sending
  });

  it("withdraw back to chain A: the synthetic burned on chain B, the tokens released to the recipient's token account", async () => {
    const dest = Keypair.generate().publicKey.toBase58();
    const before = await synthetic(walletB.address);
    const res = ok(
      await alice.post('/api/bridge/initiate', {
        bridgeType: 'chaina-chainb',
        direction: 'withdraw',
        token: 'DREAMS',
        amount: '1.2',
        destAddress: dest,
        walletId: walletB.id,
        password: PASS,
      }),
    );
    expect(res.transaction.status).toBe('submitted');
    expect(before - (await synthetic(walletB.address))).toBe(1_200_000n);
    const releaseEscrow = spl.getAssociatedTokenAddressSync(mint(), await escrowAddress(await chainA()), true);
    const collateralBefore = await amountIn(releaseEscrow);

    const done = await settled(alice, res.transaction.id);
    expect(done.status, done.failureReason).toBe('completed');
    expect(await held(dest)).toBe(1_200_000n);
    const release = await (await chainA()).rpc.getTransaction(done.destTxHash, { maxSupportedTransactionVersion: 0 });
    expect(release?.meta?.err).toBeNull();
    // From the release escrow's own token account (credited once at first use), exactly the amount.
    const credited = collateralBefore === 0n ? 1_000_000n * 1_000_000n : 0n;
    expect(collateralBefore + credited - (await amountIn(releaseEscrow))).toBe(1_200_000n);
  });

  it("the local mint is the registry's: 6 decimals, at the mainnet address; other decimals are refused", async () => {
    const chain = await chainA();
    const m = await spl.getMint(chain.rpc, mint());
    expect(m).toMatchObject({ decimals: 6, mintAuthority: null, freezeAuthority: null, isInitialized: true });
    expect(m.supply).toBeGreaterThanOrEqual(10_000_000n);
    await expect(chain.localTokens!.ensureMint(mint(), 9)).rejects.toThrow(/6 decimals/);
  });
});
