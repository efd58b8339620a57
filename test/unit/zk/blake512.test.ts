import { randomBytes } from 'node:crypto';
import createBlakeHash from 'blake-hash';
import { describe, expect, it } from 'vitest';
import { blake512 } from '#lib/zk/blake512.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('BLAKE-512', () => {
  it('matches the reference vectors (the BLAKE submission: one zero byte, 144 zero bytes)', () => {
    expect(hex(blake512(new Uint8Array(1)))).toBe(
      '97961587f6d970faba6d2478045de6d1fabd09b61ae50932054d52bc29d31be4ff9102b9f69e2bbdb83be13d4b9c06091e5fa0b48bd081b634058be0ec49beb3',
    );
    expect(hex(blake512(new Uint8Array(144)))).toBe(
      '313717d608e9cf758dcb1eb0f0c3cf9fc150b2d500fb33f51c52afc99d358a2f1374b8a38bba7974e7f6ef79cab16f22ce1e649d6e01ad9589c213045d545dde',
    );
  });

  it('matches blake-hash (circomlibjs’s BLAKE-512) at every length across the block and padding edges', () => {
    for (let len = 0; len <= 300; len++) {
      const m = randomBytes(len);
      expect(hex(blake512(m)), `length ${len}`).toBe(createBlakeHash('blake512').update(m).digest('hex'));
    }
  });
});
