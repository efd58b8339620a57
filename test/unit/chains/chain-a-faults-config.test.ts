import { describe, expect, it } from 'vitest';
import { parseChainAFaults } from '#lib/chains/chain-a/faults.ts';

/** CHAIN_FAULTS as `npm start` reads it (docs/operations.md, CHAIN_FAULTS; docs/wallets.md "Value moves on chain A"). */
describe('CHAIN_FAULTS', () => {
  it("`on`: the cluster's ways (150-slot window, 400 ms slots, a lagging node 20 slots behind), no injected faults", () => {
    expect(parseChainAFaults('on')).toEqual({ window: 150, slotMs: 400, lag: 20, seed: 1, rates: {} });
  });

  it('name=value pairs: window, slot-ms, lag, seed and a rate per fault', () => {
    expect(parseChainAFaults('late=0.1, dropped=0.05,rate-limited=0.02,lagging=0.01,slot-ms=0,lag=5,seed=7,window=20')).toEqual({
      window: 20,
      slotMs: 0,
      lag: 5,
      seed: 7,
      rates: { late: 0.1, dropped: 0.05, 'rate-limited': 0.02, lagging: 0.01 },
    });
  });

  it('refuses unknown names, rates outside [0, 1], crashes (tests only) and bare words', () => {
    expect(() => parseChainAFaults('lost=0.1')).toThrow(/CHAIN_FAULTS/);
    expect(() => parseChainAFaults('late=2')).toThrow(/CHAIN_FAULTS/);
    expect(() => parseChainAFaults('crash-after=0.1')).toThrow(/CHAIN_FAULTS/);
    expect(() => parseChainAFaults('late')).toThrow(/name=value/);
    expect(() => parseChainAFaults('lag=0')).toThrow(/CHAIN_FAULTS/);
  });
});
