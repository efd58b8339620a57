import { describe, expect, it, vi } from 'vitest';

// Feeds `random()` chosen bytes, to show values ≥ r are rejected (drawn again), never reduced.
const queue: Uint8Array[] = [];
vi.mock('node:crypto', async (orig) => {
  const real = await orig<typeof import('node:crypto')>();
  return {
    ...real,
    getRandomValues: <T extends ArrayBufferView>(buf: T): T => {
      const next = queue.shift();
      if (!next) return real.getRandomValues(buf as never) as T;
      (buf as unknown as Uint8Array).set(next);
      return buf;
    },
  };
});

const { random, R } = await import('#lib/zk/field.ts');
const be32 = (v: bigint) => Uint8Array.from(Buffer.from(v.toString(16).padStart(64, '0'), 'hex'));

describe('random: rejection sampling', () => {
  it('masks to 254 bits and rejects values ≥ r', () => {
    queue.push(new Uint8Array(32).fill(0xff)); // 2^254 − 1 after the mask: rejected
    queue.push(be32(R)); // exactly r: rejected
    queue.push(be32(R + 5n)); // would be 5 if reduced: rejected
    queue.push(be32(R - 1n)); // accepted
    expect(random()).toBe(R - 1n);
    expect(queue.length).toBe(0);
  });

  it('the top two bits are cleared, not rejected', () => {
    queue.push(Uint8Array.from([0xc0, ...new Uint8Array(30), 0x07]));
    expect(random()).toBe(7n);
  });
});
