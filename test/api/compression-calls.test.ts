import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '#functions/jobs.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';
import { signedInUser } from './identity-helpers.ts';

/**
 * The DynamoDB round trips of a compress-native request (issue 39: session, rate limit,
 * idempotency and lease in as few calls as correctness allows, nothing read twice). Counted on the
 * client's middleware stack (the runtime runs in this process), with the scheduled jobs off so that
 * only the request's own calls are seen. The value-move journal's writes keep their conditions
 * (lib/moves/journal.ts): the key's binding, the lease's hold, the move's record and the owed
 * accrual in one transaction before the send; the settlement, the hold's end and the slot in one
 * after it; the accrual with its note's clearing in one.
 */
let rt: TestRuntime;
let alice: HttpClient;
let walletId: string;

beforeAll(async () => {
  rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000' }, undefined, { withoutJobs: jobs.map((j) => j.name) });
  alice = rt.client();
  await signedInUser(alice);
  walletId = (await alice.post('/api/wallets', { chain: 'a', name: 'main' })).json.wallet.id;
  const drop = await alice.post(`/api/wallets/${walletId}/airdrop`, { amount: 10 });
  if (drop.status !== 200) throw new Error(JSON.stringify(drop.json));
});
afterAll(async () => rt?.stop());

/** Each DynamoDB call `fn` makes: its command and the key prefixes it names (`pk` up to its first `#`). */
async function calls(fn: () => Promise<{ status: number }>): Promise<string[]> {
  const made: string[] = [];
  // Imported once the runtime has set the endpoint (the client is built at import).
  const { dynamo } = await import('#lib/data/client.ts');
  dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      const keys = [...new Set(JSON.stringify(args.input).match(/(?<="pk":\{"S":")[A-Z]+/g) ?? [])];
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
  it('reads the session and the wallet once each; four writes: lease, record, settlement, accrual', async () => {
    await compress(); // warm: the chain, the modules
    expect(await calls(() => compress())).toEqual([
      'GetItem SESSION',
      'GetItem WALLETS',
      'PutItem WALLETLOCK',
      // before the send: the lease held for the transaction, the move recorded, the accrual noted as owed
      'TransactWriteItems WALLETLOCK+MOVE+REWARDOWED',
      // landed: the move settled, the hold ended, the slot recorded
      'TransactWriteItems MOVE+WALLETLOCK+WALLETS',
      // the points, the owed note cleared
      'TransactWriteItems REWARDSRC+REWARDEPOCH+REWARDLEDGER+REWARDEPOCHS+REWARDOWED',
    ]);
  });

  it('with an Idempotency-Key: its claim, its binding in the record transaction, its completion', async () => {
    expect(await calls(() => compress({ 'idempotency-key': 'calls-1' }))).toEqual([
      'GetItem SESSION',
      'PutItem IDEMPOTENCY',
      'GetItem WALLETS',
      'PutItem WALLETLOCK',
      'TransactWriteItems IDEMPOTENCY+WALLETLOCK+MOVE+REWARDOWED',
      'TransactWriteItems MOVE+WALLETLOCK+WALLETS',
      'TransactWriteItems REWARDSRC+REWARDEPOCH+REWARDLEDGER+REWARDEPOCHS+REWARDOWED',
      'UpdateItem IDEMPOTENCY',
    ]);
  });
});
