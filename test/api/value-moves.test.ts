import { buildAndSignTx } from '@lightprotocol/stateless.js';
import { Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FaultyChainA } from '#lib/chains/chain-a/faults.ts';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * Chain A sends that the chain does not confirm in time (issue 36, defect 2), over HTTP against
 * the fault layer (CHAIN_FAULTS): the answer is 202 `submitted` with the transaction, never 502;
 * the Idempotency-Key and the wallet's lease stay bound to that transaction until the chain
 * settles it (lib/moves/journal.ts), so a retry never signs a second one while the first may land.
 */
let rt: TestRuntime;
let alice: HttpClient;
let wallet: { id: string; address: string };
let chain: FaultyChainA;
let keys = 0;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '20', CHAIN_FAULTS: 'slot-ms=0' });
  alice = rt.client();
  await signedInUser(alice);
  wallet = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet;
  expect((await alice.post(`/api/wallets/${wallet.id}/airdrop`, { amount: 10 })).status).toBe(200);
  chain = (await (await import('#lib/chains/chain-a/index.ts')).chainA()) as FaultyChainA;
}, 120_000);
afterAll(async () => rt?.stop());
beforeEach(() => {
  chain.clearInjected();
  advanceClock(61_000);
});

const compressed = async () => BigInt(await chain.rpc.getCompressedBalanceByOwner(new PublicKey(wallet.address)).then(String));
const compress = (sol: number, key: string) =>
  alice.post('/api/compression/compress-native', { walletId: wallet.id, amount: sol }, { headers: { 'idempotency-key': key } });
const resolve = async () => (await import('#lib/moves/journal.ts')).resolveMovesOnce();

describe("a send confirmed after the client's timeout", () => {
  it('answers 202 submitted; the retry with its Idempotency-Key gets that answer again, and it is compressed once', async () => {
    const before = await compressed();
    const key = `late-${++keys}`;
    chain.inject('late');
    const first = await compress(0.5, key);
    expect(first.status, JSON.stringify(first.json)).toBe(202);
    expect(first.json).toEqual({ success: true, status: 'submitted', txHash: expect.any(String), explorerUrl: expect.any(String) });
    const again = await compress(0.5, key);
    expect(again.status).toBe(202);
    expect(again.json.txHash).toBe(first.json.txHash);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await compressed()).toBe(before + 500_000_000n);
    expect((await resolve()).landed).toBe(1);
    expect(await compressed()).toBe(before + 500_000_000n);
  });

  it('a send that never lands holds the wallet (409 naming it) until its blockhash expired; then the key is free again and nothing moved', async () => {
    const before = await compressed();
    const key = `dropped-${++keys}`;
    chain.inject('dropped');
    chain.inject('rpc-timeout'); // and the resend the next request makes for it times out: still unsettled
    const first = await compress(0.25, key);
    expect(first.status).toBe(202);
    const other = await alice.post('/api/compression/compress-native', { walletId: wallet.id, amount: 0.1 });
    expect(other.status).toBe(409);
    expect(other.json.error).toBe('WALLET_LOCKED');
    expect(other.json.message).toContain(first.json.txHash);
    chain.inject('rpc-timeout'); // the journal's resend times out: still unsettled
    expect((await resolve()).pending).toBe(1);

    chain.advanceSlots(200);
    expect((await resolve()).expired).toBe(1);
    expect(await compressed()).toBe(before);
    const retried = await compress(0.25, key);
    expect(retried.status, JSON.stringify(retried.json)).toBe(200);
    expect(retried.json.txHash).not.toBe(first.json.txHash);
    expect(await compressed()).toBe(before + 250_000_000n);
  });

  it('a request that dies after the chain took its send: the retry waits (409) and then gets the 202 naming it, never a second send', async () => {
    const before = await compressed();
    const key = `crash-${++keys}`;
    chain.inject('crash-after');
    const died = await fetch(new URL('/api/compression/compress-native', rt.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key, cookie: [...alice.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      body: JSON.stringify({ walletId: wallet.id, amount: 0.125 }),
      signal: AbortSignal.timeout(3_000),
    }).catch((e: Error) => e);
    expect(died).toBeInstanceOf(Error);
    expect(await compressed()).toBe(before + 125_000_000n);

    advanceClock(120_000); // past the request's own idempotency lock and wallet lease
    const retry = await compress(0.125, key);
    expect(retry.status).toBe(409);
    expect(retry.json.error).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect((await resolve()).landed).toBe(1);
    const replay = await compress(0.125, key);
    expect(replay.status).toBe(202);
    expect(replay.json.status).toBe('submitted');
    expect(await compressed()).toBe(before + 125_000_000n);
    // The wallet is free again.
    expect((await alice.post('/api/compression/compress-native', { walletId: wallet.id, amount: 0.01 })).status).toBe(200);
  });
});

describe('an attempt that stalled past its Idempotency-Key lock', () => {
  it('sends nothing once a retry of the same request took the key over: the retry does the work, never both', async () => {
    const idem = await import('#lib/data/idempotency.ts');
    const { journaled } = await import('#lib/moves/journal.ts');
    const { requestIdempotency } = await import('#lib/http/request-idempotency.ts');
    const scope = 'user:stall|POST /api/compression/transfer';
    const key = `stall-${++keys}`;
    const fingerprint = 'f'.repeat(64);
    const first = await idem.claim(scope, key, fingerprint, 34);
    expect(first.kind).toBe('claimed');
    advanceClock(60_000); // the first attempt stalls past its lock (a local server has no Lambda timeout to end it)
    const retry = await idem.claim(scope, key, fingerprint, 34);
    expect(retry.kind).toBe('claimed'); // the same request, so the same fingerprint: only the lease's owner tells them apart

    const payer = Keypair.generate();
    await chain.airdrop(payer.publicKey, 1_000_000_000n);
    const { blockhash, lastValidBlockHeight } = await chain.rpc.getLatestBlockhash();
    const tx = buildAndSignTx(
      [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1_000_000 })],
      payer,
      blockhash,
    );
    const landed = chain.landedSignatures().length;
    const owner = first.kind === 'claimed' ? first.owner : '';
    const stale = requestIdempotency.run({ scope, key, fingerprint, owner, envelope: 'flat' }, () =>
      journaled(chain, { userId: 'user:stall', purpose: { kind: 'wallet-send', operation: 'transfer' } })(tx, lastValidBlockHeight),
    );
    await expect(stale).rejects.toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS', status: 409 });
    expect(chain.landedSignatures().length).toBe(landed);
    // The key is still the retry's: it completes it.
    await idem.complete(scope, key, retry.kind === 'claimed' ? retry.owner : '', { statusCode: 200, headers: {}, body: '{}' });
  });
});

describe('the same signed bytes refused before they ran, then sent again', () => {
  it('are journaled again and settled by what the chain did: landed, not the first refusal', async () => {
    const { journaled } = await import('#lib/moves/journal.ts');
    const { getMove } = await import('#lib/data/value-moves.ts');
    const payer = Keypair.generate(); // nothing to pay the fee with yet: the chain refuses the transaction before it runs
    const { blockhash, lastValidBlockHeight } = await chain.rpc.getLatestBlockhash();
    const tx = buildAndSignTx(
      [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1_000_000 })],
      payer,
      blockhash,
    );
    const send = () => journaled(chain, { userId: 'user:resend', purpose: { kind: 'wallet-send', operation: 'transfer' } })(tx, lastValidBlockHeight);
    await expect(send()).rejects.toThrow();
    const sig = (await import('bs58')).default.encode(tx.signatures[0]!);
    expect((await getMove(sig))?.status).toBe('failed');

    await chain.airdrop(payer.publicKey, 1_000_000_000n);
    const sent = await send(); // identical bytes, one signature: now they run
    expect(sent.signature).toBe(sig);
    expect(chain.landedSignatures()).toContain(sig);
    expect((await getMove(sig))?.status).toBe('landed');
  });
});
