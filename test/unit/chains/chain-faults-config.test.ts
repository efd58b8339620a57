import { describe, expect, it } from 'vitest';
import { chainAFaults, parseChainAFaults } from '#lib/chains/chain-a/faults.ts';
import { chainBFaults } from '#lib/chains/chain-b/faults.ts';
import { l1Faults } from '#lib/chains/ethereum/faults.ts';

/** CHAIN_FAULTS for the three layers in one string (docs/chain-faults.md). */
describe('CHAIN_FAULTS across chain A, chain B and the L1', () => {
  it('each layer takes its own names; chain A keeps its unprefixed syntax (a. also works)', () => {
    const text = 'late=0.1,a.dropped=0.05,b.pending=0.2,b.rejected=0.1,b.pending-blocks=5,b.block-ms=0,l1.reorg=0.05,l1.reorg-blocks=6,l1.seed=9';
    expect(chainAFaults(text)).toEqual({ window: 150, slotMs: 400, lag: 20, seed: 1, rates: { late: 0.1, dropped: 0.05 } });
    expect(chainAFaults('lagging=0.1,lag=40')).toMatchObject({ lag: 40, rates: { lagging: 0.1 } });
    expect(chainBFaults(text)).toEqual({ pendingBlocks: 5, blockMs: 0, lagBlocks: 3, seed: 1, rates: { pending: 0.2, rejected: 0.1 } });
    expect(chainBFaults('b.lagging=0.3,b.lag-blocks=7')).toMatchObject({ lagBlocks: 7, rates: { lagging: 0.3 } });
    expect(l1Faults(text)).toEqual({ reorgBlocks: 6, lateBlocks: 2, seed: 9, rates: { reorg: 0.05 } });
  });

  it('a layer is on when named or with `on`; off otherwise (chain A as before when only others are named)', () => {
    expect(chainAFaults('b.reverted=0.1')).toBeUndefined();
    expect(l1Faults('b.reverted=0.1')).toBeUndefined();
    expect(chainBFaults('late=0.1')).toBeUndefined();
    expect(chainBFaults('on')).toEqual({ pendingBlocks: 3, blockMs: 6000, lagBlocks: 3, seed: 1, rates: {} });
    expect(l1Faults('on')).toEqual({ reorgBlocks: 3, lateBlocks: 2, seed: 1, rates: {} });
    expect(parseChainAFaults('b.reverted=0.1')).toEqual(parseChainAFaults('on'));
  });

  it('refuses unknown names and rates outside [0, 1], naming the layer', () => {
    expect(() => chainBFaults('b.lost=0.1')).toThrow(/CHAIN_FAULTS: .*b\./);
    expect(() => chainBFaults('b.rejected=1.5')).toThrow(/CHAIN_FAULTS: b\.rejected/);
    expect(() => l1Faults('l1.reorg-blocks=0')).toThrow(/CHAIN_FAULTS: l1\.reorg-blocks/);
    expect(() => chainAFaults('b.pending')).toThrow(/name=value/);
  });
});
