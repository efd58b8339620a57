import { describe, expect, it } from 'vitest';
import { parseChainAFaults } from '#lib/chains/chain-a/faults.ts';

/** CHAIN_FAULTS as `npm start` reads it (docs/operations.md, CHAIN_FAULTS; docs/wallets.md "Value moves on chain A"). */
describe('CHAIN_FAULTS', () => {
  it("`on`: the cluster's ways (150-slot window, 400 ms slots), no injected faults", () => {
    expect(parseChainAFaults('on')).toEqual({ window: 150, slotMs: 400, seed: 1, rates: {} });
  });

  it('name=value pairs: window, slot-ms, seed and a rate per fault', () => {
    expect(parseChainAFaults('late=0.1, dropped=0.05,rate-limited=0.02,slot-ms=0,seed=7,window=20')).toEqual({
      window: 20,
      slotMs: 0,
      seed: 7,
      rates: { late: 0.1, dropped: 0.05, 'rate-limited': 0.02 },
    });
  });

  it('refuses unknown names, rates outside [0, 1], crashes (tests only) and bare words', () => {
    expect(() => parseChainAFaults('lost=0.1')).toThrow(/CHAIN_FAULTS/);
    expect(() => parseChainAFaults('late=2')).toThrow(/CHAIN_FAULTS/);
    expect(() => parseChainAFaults('crash-after=0.1')).toThrow(/CHAIN_FAULTS/);
    expect(() => parseChainAFaults('late')).toThrow(/name=value/);
  });
});
