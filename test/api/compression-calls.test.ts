import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';
import { withDynamoFailing } from '../support/dynamo-faults.ts';

/**
 * The DynamoDB round trips of a compress-native request (issue 39: session, rate limit,
 * idempotency and lease in as few calls as correctness allows, nothing read twice). Counted on the
 * client's middleware stack (the runtime runs in this process), with the scheduled jobs off so that
 * only the request's own calls are seen. The value-move journal's writes keep their conditions
 * (lib/moves/journal.ts): the key's binding, the lease's hold, the move's record and the owed
 * accrual in one transaction before the send; the settlement, the hold's end, the slot, the accrual
 * and its note's clearing in one after it.
 */
let rt: TestRuntime;
let alice: HttpClient;
let walletId: string;
let userId: string;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000' }, undefined, { withoutJobs: jobs.map((j) => j.name) });
  alice = rt.client();
  userId = (await signedInUser(alice)).user.id;
  walletId = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet.id;
  const drop = await alice.post(`/api/wallets/${walletId}/airdrop`, { amount: 10 });
  if (drop.status !== 200) throw new Error(JSON.stringify(drop.json));
});
afterAll(async () => rt?.stop());

/** Each DynamoDB call `fn` makes: its command and the key prefixes it names (`pk`, or a query's `:pk`, up to its first `#`). */
async function calls(fn: () => Promise<{ status: number }>): Promise<string[]> {
  const made: string[] = [];
  // Imported once the runtime has set the endpoint (the client is built at import).
  const { dynamo } = await import('#lib/data/client.ts');
  dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      const keys = [...new Set(JSON.stringify(args.input).match(/(?<="(?:pk|:pk)":\{"S":")[A-Z]+/g) ?? [])];
      made.push(`${context.commandName?.replace(/Command$/, '')} ${keys.join('+')}`);
      return next(args);
    },
    { step: 'build', name: 'countCalls' },
  );
  try {
    expect((await fn()).status).toBe(200);
  } finally {
    dynamo.middlewareStack.remove('countCalls');
  }
  // The rate limiter goes to DynamoDB only when its lease of tokens runs out (lib/http/rate-limit.ts): not per request.
  return made.filter((c) => c !== 'UpdateItem RATE');
}

const compress = (headers?: Record<string, string>) => alice.post('/api/compression/compress-native', { walletId, amount: 0.001 }, headers ? { headers } : {});

describe('compress-native: DynamoDB calls per request', () => {
  it('reads the session and the wallet once each; three writes: lease, record, settlement with the accrual', async () => {
    await compress(); // warm: the chain, the modules
    expect(await calls(() => compress())).toEqual([
      'GetItem SESSION',
      'GetItem WALLETS',
      'PutItem WALLETLOCK',
      // before the send: the lease held for the transaction, the move recorded, the accrual noted as owed
      'TransactWriteItems WALLETLOCK+MOVE+REWARDOWED',
      // landed: the move settled, the hold ended, the slot recorded, the points, the owed note cleared
      'TransactWriteItems MOVE+WALLETLOCK+WALLETS+REWARDSRC+REWARDEPOCH+REWARDLEDGER+REWARDEPOCHS+REWARDOWED',
    ]);
  });

  it('with an Idempotency-Key: its claim, its binding in the record transaction, its completion', async () => {
    expect(await calls(() => compress({ 'idempotency-key': 'calls-1' }))).toEqual([
      'GetItem SESSION',
      'PutItem IDEMPOTENCY',
      'GetItem WALLETS',
      'PutItem WALLETLOCK',
      'TransactWriteItems IDEMPOTENCY+WALLETLOCK+MOVE+REWARDOWED',
      'TransactWriteItems MOVE+WALLETLOCK+WALLETS+REWARDSRC+REWARDEPOCH+REWARDLEDGER+REWARDEPOCHS+REWARDOWED',
      'UpdateItem IDEMPOTENCY',
    ]);
  });

  it("a compressed transfer reads the user's wallets once: the one that signs, and whether the recipient is another of them", async () => {
    const { mintAddress: mint } = (await alice.post('/api/compression/create-token', { walletId, decimals: 6 })).json;
    expect((await alice.post('/api/compression/mint-to', { walletId, mint, amount: 1000 })).status).toBe(200);
    expect((await alice.post('/api/compression/compress-token', { walletId, mint, amount: 100 })).status).toBe(200);
    const to = (await alice.post('/api/wallets', { chain: 'a', name: 'other' })).json.wallet.address as string;
    const send = (recipient: string) => () => alice.post('/api/compression/transfer', { walletId, mint, to: recipient, amount: 1 });
    expect(await calls(send(Keypair.generate().publicKey.toBase58()))).toEqual([
      'GetItem SESSION',
      'Query WALLETS',
      'PutItem WALLETLOCK',
      'TransactWriteItems WALLETLOCK+MOVE+REWARDOWED',
      'TransactWriteItems MOVE+WALLETLOCK+WALLETS+REWARDSRC+REWARDEPOCH+REWARDLEDGER+REWARDEPOCHS+REWARDOWED',
    ]);
    // To the user's own wallet: nothing earned, so no accrual noted or recorded.
    expect(await calls(send(to))).toEqual([
      'GetItem SESSION',
      'Query WALLETS',
      'PutItem WALLETLOCK',
      'TransactWriteItems WALLETLOCK+MOVE',
      'TransactWriteItems MOVE+WALLETLOCK+WALLETS',
    ]);
  });

  it('the settlement with the points failing in any other way (a conflict past its retries): 200 all the same, settled without them, the points recorded once after', async () => {
    const { ledger } = await import('#lib/data/rewards-ledger.ts');
    let txHash = '';
    // The settlement with the points (a transaction naming the move and the points) fails once.
    const { out: made, failed } = await withDynamoFailing(
      (_, input) => input.includes('"TransactItems"') && input.includes('"MOVE#') && input.includes('"REWARDSRC#'),
      () =>
        calls(async () => {
          const r = await compress();
          txHash = r.json.txHash;
          return r;
        }),
      1,
    );
    expect(made).toEqual([
      'GetItem SESSION',
      'GetItem WALLETS',
      'PutItem WALLETLOCK',
      'TransactWriteItems WALLETLOCK+MOVE+REWARDOWED',
      'TransactWriteItems MOVE+WALLETLOCK+WALLETS+REWARDSRC+REWARDEPOCH+REWARDLEDGER+REWARDEPOCHS+REWARDOWED',
      'TransactWriteItems MOVE+WALLETLOCK+WALLETS',
      'TransactWriteItems REWARDSRC+REWARDEPOCH+REWARDLEDGER+REWARDEPOCHS+REWARDOWED',
    ]);
    expect(failed).toBe(1);
    expect((await ledger(userId)).filter((e) => e.txHash === txHash)).toHaveLength(1);
  });

  it('the settlement not written at all after the send landed: 200 all the same, and a retry with its key gets that answer, nothing sent again; the journal settles it', async () => {
    const { getMove } = await import('#lib/data/value-moves.ts');
    const { resolveMovesOnce } = await import('#lib/moves/journal.ts');
    // Every write that settles a move (its condition: still `sent`) or records the wallet's slot fails.
    const { out: first, failed } = await withDynamoFailing(
      (_, input) => input.includes('":sent"') || input.includes('lastSlot'),
      () => compress({ 'idempotency-key': 'settlement-lost' }),
    );
    expect(failed).toBe(3); // with the points, then without; the lease's release with the slot
    expect(first.status).toBe(200);
    const txHash = first.json.txHash as string;
    expect((await getMove(txHash))?.status).toBe('sent');
    const again = await compress({ 'idempotency-key': 'settlement-lost' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.txHash).toBe(txHash);
    await resolveMovesOnce();
    expect((await getMove(txHash))?.status).toBe('landed');
    expect((await compress()).status).toBe(200); // the wallet is free again
  });

  // Last: it leaves the current epoch closing.
  it('the epoch closing: the settlement goes without the points, which then go into the next epoch once', async () => {
    const { startClose, epochAccount, ledger } = await import('#lib/data/rewards-ledger.ts');
    const { accountOf, epochOf } = await import('#lib/rewards/rules.ts');
    const epoch = epochOf(Date.now());
    await startClose(epoch);
    const before = (await epochAccount(epoch + 1, accountOf(userId)))?.points ?? 0;
    expect(await calls(() => compress())).toEqual([
      'GetItem SESSION',
      'GetItem WALLETS',
      'PutItem WALLETLOCK',
      'TransactWriteItems WALLETLOCK+MOVE+REWARDOWED',
      // refused on the closing epoch's check, so written again without the accrual
      'TransactWriteItems MOVE+WALLETLOCK+WALLETS+REWARDSRC+REWARDEPOCH+REWARDLEDGER+REWARDEPOCHS+REWARDOWED',
      'TransactWriteItems MOVE+WALLETLOCK+WALLETS',
      // the accrual on its own: the closing epoch refuses it, the next takes it with the note cleared
      'TransactWriteItems REWARDSRC+REWARDEPOCH+REWARDLEDGER+REWARDEPOCHS+REWARDOWED',
      'TransactWriteItems REWARDSRC+REWARDEPOCH+REWARDLEDGER+REWARDEPOCHS+REWARDOWED',
    ]);
    expect((await epochAccount(epoch + 1, accountOf(userId)))!.points).toBeGreaterThan(before);
    const entries = (await ledger(userId)).filter((e) => e.source === 'compression');
    expect(new Set(entries.map((e) => e.txHash)).size).toBe(entries.length);
  });
});
