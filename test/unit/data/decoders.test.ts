import { describe, expect, it } from 'vitest';
import { allOf, anyOf, decoder, isLive, MalformedItemError, withCondition, type Decoder } from '#lib/data/items.ts';
import { bugReportDecoder } from '#lib/data/bug-reports.ts';
import { ledgerTransactionDecoder, registryEventDecoder, registryProofDecoder } from '#lib/local/chain-b/ledger-table.ts';
import { fileRecordDecoder } from '#lib/data/files.ts';
import { idempotencyDecoder } from '#lib/data/idempotency.ts';
import { loginFailuresDecoder } from '#lib/data/login-failures.ts';
import { pendingAuthDecoder } from '#lib/data/oauth-states.ts';
import { pinDecoder } from '#lib/data/pins.ts';
import { proofHistoryDecoder } from '#lib/data/proof-history.ts';
import { sessionDecoder } from '#lib/data/sessions.ts';
import { shareDecoder } from '#lib/data/shares.ts';
import { starkKeyDecoder } from '#lib/data/stark-keys.ts';
import { starkProofDecoder } from '#lib/data/stark-proofs.ts';
import { pendingUploadDecoder } from '#lib/data/uploads.ts';
import { userDecoder } from '#lib/data/users.ts';
import { z } from 'zod';

/** The typed decoders of the repositories, without DynamoDB (repositories.test.ts has the reads). */
const session = {
  pk: 'SESSION#abc',
  sk: 'SESSION',
  ttl: 2_000_000_000,
  hash: 'abc',
  userId: 'u-1',
  method: 'oauth:github',
  createdAt: 1_700_000_000,
  idleExpiresAt: 1_700_086_400,
  absoluteExpiresAt: 1_700_604_800,
  provider: 'github',
};

const caught = (fn: () => unknown): MalformedItemError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof MalformedItemError) return e;
    throw e;
  }
  throw new Error('expected a MalformedItemError');
};

describe('a decoder', () => {
  it('returns the entity fields and leaves the table attributes (pk, sk, gsi1*, ttl) out', () => {
    const s = sessionDecoder.decode(session);
    expect(s).toEqual({
      hash: 'abc',
      userId: 'u-1',
      method: 'oauth:github',
      createdAt: 1_700_000_000,
      idleExpiresAt: 1_700_086_400,
      absoluteExpiresAt: 1_700_604_800,
      provider: 'github',
    });
    const file = fileRecordDecoder.decode({
      pk: 'FILE#f',
      sk: 'FILE',
      gsi1pk: 'FILES#u',
      gsi1sk: 'x',
      id: 'f',
      userId: 'u',
      cid: 'bafy',
      filename: 'a.bin',
      size: 3,
      checksum: 'ab',
      createdAt: 't',
      zkEnabled: false,
      variant: 'A',
    });
    expect(Object.keys(file).sort()).toEqual(['checksum', 'cid', 'createdAt', 'filename', 'id', 'size', 'userId', 'variant', 'zkEnabled']);
  });

  it('refuses a malformed item with an error that names the entity and the field', () => {
    const e = caught(() => sessionDecoder.decode({ ...session, idleExpiresAt: '1700086400' }));
    expect(e.name).toBe('MalformedItemError');
    expect(e.entity).toBe('session');
    expect(e.message).toMatch(/^malformed session item: idleExpiresAt: /);
    expect(e.message).toMatch(/expected number/);
  });

  it('names nested fields by their path, and lists every problem', () => {
    const e = caught(() =>
      pinDecoder.decode({ cid: 'c', refs: 1, state: 'gone', adapter: 's3', ref: { blocks: ['b', 7] }, size: 1, checksum: 'x', createdBy: 'u' }),
    );
    expect(e.problems.map((p) => p.split(':')[0])).toEqual(['state', 'ref.blocks.1']);
  });

  it('never puts a field value in its message (items hold secrets)', () => {
    const secret = 'c2VjcmV0LWtleS1tYXRlcmlhbA==';
    const e = caught(() => starkKeyDecoder.decode({ enc: 42, publicKey: secret, keyHash: [secret] }));
    expect(e.message).not.toContain(secret);
    expect(e.message).toMatch(/^malformed STARK session key item: /);
    expect(e.problems.map((p) => p.split(':')[0])).toEqual(['enc', 'keyHash']);
  });

  it('refuses a missing required field', () => {
    expect(caught(() => userDecoder.decode({ id: 'u-1' })).message).toBe('malformed user item: createdAt: Invalid input: expected string, received undefined');
  });

  it.each<[string, Decoder<unknown>]>([
    ['session', sessionDecoder],
    ['user', userDecoder],
    ['pending OAuth authorization', pendingAuthDecoder],
    ['login failure counter', loginFailuresDecoder],
    ['file record', fileRecordDecoder],
    ['pin', pinDecoder],
    ['share link', shareDecoder],
    ['pending upload', pendingUploadDecoder],
    ['proof history entry', proofHistoryDecoder],
    ['bug report', bugReportDecoder],
    ['STARK session key', starkKeyDecoder],
    ['STARK proof', starkProofDecoder],
    ['chain B registry proof', registryProofDecoder],
    ['chain B registry event', registryEventDecoder],
    ['chain B transaction', ledgerTransactionDecoder],
    ['idempotency record', idempotencyDecoder],
  ])('%s: an empty item is refused', (entity, d) => {
    expect(d.entity).toBe(entity);
    expect(() => d.decode({ pk: 'X', sk: 'Y' })).toThrow(new RegExp(`^malformed ${entity} item: `));
  });

  it('is built from any zod object schema', () => {
    const d = decoder('thing', z.object({ n: z.number().int() }));
    expect(d.decode({ n: 3, pk: 'p' })).toEqual({ n: 3 });
    expect(() => d.decode({ n: 1.5 })).toThrow('malformed thing item: n: ');
  });
});

describe('the live-item rule', () => {
  it('an item past its ttl is absent; one without a ttl never expires', () => {
    expect(isLive({ ttl: 100 }, 99)).toBe(true);
    expect(isLive({ ttl: 100 }, 100)).toBe(false);
    expect(isLive({}, 1e12)).toBe(true);
    expect(isLive(undefined, 0)).toBe(false);
  });

  it('conditions combine with AND or OR and refuse a name or value given two meanings', () => {
    const c = allOf(
      { ConditionExpression: 'a = :x', ExpressionAttributeValues: { ':x': 1 } },
      { ConditionExpression: '#s = :y', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':y': 'p' } },
    );
    expect(c).toEqual({
      ConditionExpression: '(a = :x) AND (#s = :y)',
      ExpressionAttributeNames: { '#s': 'state' },
      ExpressionAttributeValues: { ':x': 1, ':y': 'p' },
    });
    expect(() =>
      allOf({ ConditionExpression: 'a', ExpressionAttributeValues: { ':x': 1 } }, { ConditionExpression: 'b', ExpressionAttributeValues: { ':x': 2 } }),
    ).toThrow(/:x/);
    expect(anyOf({ ConditionExpression: 'a' }, { ConditionExpression: 'b = :x', ExpressionAttributeValues: { ':x': 1 } })).toEqual({
      ConditionExpression: '(a) OR (b = :x)',
      ExpressionAttributeValues: { ':x': 1 },
    });
    expect(withCondition(c, { values: { ':one': 1 } }).ExpressionAttributeValues).toEqual({ ':x': 1, ':y': 'p', ':one': 1 });
    expect(() => withCondition(c, { names: { '#s': 'other' } })).toThrow(/#s/);
  });
});
