import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './import-graph.ts';

/**
 * The concurrency kit (lib/data/conditional.ts, leases.ts, retry.ts; docs/concurrency.md) is the
 * one way to decide a race: conditions are written in lib/data only, a lease's conditions in
 * leases.ts only, and a loop that tries again after a pause lives in retry.ts. Checked on the
 * text (comments stripped); what else pauses and tries again is listed with why it is not a race.
 * An entry that no longer matches fails too, so the lists cannot go stale.
 */
function listTs(dir: string): string[] {
  return readdirSync(join(repoRoot, dir)).flatMap((name) => {
    const rel = join(dir, name);
    if (statSync(join(repoRoot, rel)).isDirectory()) return listTs(rel);
    return /\.(ts|mts|cts)$/.test(name) ? [rel] : [];
  });
}
const withoutComments = (src: string) => src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
const sources = listTs('lib').map((file) => ({ file, code: withoutComments(readFileSync(join(repoRoot, file), 'utf8')) }));
const matching = (re: RegExp) =>
  sources
    .filter((s) => re.test(s.code))
    .map((s) => s.file)
    .sort();

/** A condition, written out: DynamoDB's `ConditionExpression`. */
const CONDITION = /\bConditionExpression\b/;
/** A lease's own conditions: free when expired, held by an owner (any of the shapes before the kit). */
const LEASE_CONDITION = /expiresAt\s*<\s*:|#o\s*=\s*:o\b|leaseOwner\s*=\s*:|leaseUntil\s*<\s*:|lockedUntil\s*<=?\s*:/;
/** A pause before trying again (a promise of a setTimeout), or a loop counting attempts. */
const RETRY_LOOP = /new Promise(<\w+>)?\(\s*\(?\w+\)?\s*=>\s*setTimeout\(|for \(let (attempt|attempts|retry|retries|tries)\b|\bjitter\s*\(/;

const LEASE_CONDITIONS_ALLOWED: Record<string, string> = {
  'lib/data/leases.ts': "the kit: the item lease's conditions",
  'lib/data/shielded-withdrawals.ts': 'payout jobs leased before the kit (leaseUntil): a live one is honoured',
  'lib/data/idempotency.ts': 'idempotency records claimed before the kit (lockedUntil): a live one is honoured',
};

const RETRY_LOOPS_ALLOWED: Record<string, string> = {
  'lib/data/retry.ts': 'the kit: the optimistic retry itself',
  'lib/data/block-index.ts': "BatchWriteItem leaves items unprocessed under throughput limits: backing off is the API's contract, not a lost race",
  'lib/storage/replica-queue.ts': 'the local queue waits for its worker, and SQS SendMessageBatch entries that failed are sent once more: no conditional write',
  'lib/storage/replica-target-pinata.ts': 'HTTP 429/5xx from an external pinning service, honouring Retry-After: no conditional write',
  'lib/chains/chain-a/rpc.ts': "polls the chain for a signature's status: waiting for the chain, not retrying a write",
  'lib/chains/chain-b/receipts.ts': 'polls chain B for a receipt: waiting for the chain, not retrying a write',
  'lib/client/api.ts': "the client library's HTTP retries (a 503 / Retry-After from the service): outside the server",
  'lib/local/dynamodb-local.ts': 'starts DynamoDB Local again when it exits before answering (the embedded default only)',
  'lib/local/ports.ts': 'waits for an embedded server to listen (the embedded default only)',
  'lib/local/moto.ts': 'waits for the embedded AWS emulator to listen (the embedded default only)',
  'lib/local/s3-local.ts': "the embedded S3's injected outage (a test fault), not a retry",
};

describe('the concurrency kit is the one way to decide a race', () => {
  it('only lib/data writes a ConditionExpression', () => {
    // lib/local/chain-b's two tables are the chain B emulator's own state (as a chain's, not the service's records).
    expect(matching(CONDITION).filter((f) => !f.startsWith('lib/data/') && !f.startsWith('lib/local/chain-b/'))).toEqual([]);
  });

  it("a lease's conditions are written in lib/data/leases.ts only (and where old lease shapes are honoured)", () => {
    expect(matching(LEASE_CONDITION)).toEqual(Object.keys(LEASE_CONDITIONS_ALLOWED).sort());
  });

  it("no loop pauses and tries again but the kit's retry and the listed waits that are not races", () => {
    expect(matching(RETRY_LOOP)).toEqual(Object.keys(RETRY_LOOPS_ALLOWED).sort());
  });

  it('the patterns see what they are meant to (so the checks above can fail)', () => {
    expect(RETRY_LOOP.test('for (let attempt = 0; attempt < 8; attempt++) {')).toBe(true);
    expect(RETRY_LOOP.test('await new Promise((ok) => setTimeout(ok, 5 + Math.random() * 20))')).toBe(true);
    expect(RETRY_LOOP.test('const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));')).toBe(true);
    expect(RETRY_LOOP.test('for (let round = 0; round < 16; round++) {')).toBe(false);
    expect(LEASE_CONDITION.test("ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now'")).toBe(true);
    expect(LEASE_CONDITION.test("ConditionExpression: '#o = :o'")).toBe(true);
    expect(LEASE_CONDITION.test("'#s = :quoted AND expiresAt > :now'")).toBe(false);
  });
});
