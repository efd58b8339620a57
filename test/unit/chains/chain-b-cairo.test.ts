import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERC20_REVERTS } from '#lib/chains/chain-b/ledger.ts';

/**
 * The ERC-20 the local chain B ledger stands for (lib/chains/chain-b/erc20.cairo), compiled and
 * tested with the Cairo 2.8.2 compiler and test runner as WebAssembly (`wasm-cairo`). The revert
 * tests are generated from the ledger's own strings (ERC20_REVERTS): each passes only if the
 * contract panics with exactly that string, so the ledger's reasons are the contract's.
 * Slow (minutes on a loaded machine: the compiler runs in WebAssembly), hence one run.
 */
const require = createRequire(import.meta.url);
const source = readFileSync(join(import.meta.dirname, '../../../lib/chains/chain-b/erc20.cairo'), 'utf8');
const cairoString = (s: string) => {
  if (!/^[\x20-\x26\x28-\x7e]{1,31}$/.test(s)) throw new Error(`not a Cairo short string: ${s}`);
  return `'${s}'`;
};

const generated = `
#[cfg(test)]
mod ledger_reverts {
    use starknet::contract_address_const;
    use starknet::testing::set_contract_address;
    use super::{IERC20Dispatcher, IERC20DispatcherTrait};
    use super::tests::{alice, bob, deploy, mint};

    #[test]
    #[should_panic(expected: (${cairoString(ERC20_REVERTS.insufficientBalance)}, 'ENTRYPOINT_FAILED'))]
    fn ledger_insufficient_balance() {
        let token = deploy();
        mint(token, alice(), 10);
        set_contract_address(alice());
        IERC20Dispatcher { contract_address: token }.transfer(bob(), 11);
    }

    #[test]
    #[should_panic(expected: (${cairoString(ERC20_REVERTS.transferToZero)}, 'ENTRYPOINT_FAILED'))]
    fn ledger_transfer_to_zero() {
        let token = deploy();
        mint(token, alice(), 10);
        set_contract_address(alice());
        IERC20Dispatcher { contract_address: token }.transfer(contract_address_const::<0>(), 1);
    }

    #[test]
    #[should_panic(expected: (${cairoString(ERC20_REVERTS.overflow)}, 'ENTRYPOINT_FAILED'))]
    fn ledger_u256_overflow() {
        let token = deploy();
        mint(token, alice(), 0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff_u256);
        mint(token, bob(), 1);
    }
}
`;

describe('chain B contracts in Cairo (wasm-cairo)', () => {
  it('erc20.cairo compiles and its tests pass, the ledger\'s revert strings included', { timeout: 1_200_000 }, async () => {
    const cairo = await import('wasm-cairo');
    cairo.initSync({ module: readFileSync(require.resolve('wasm-cairo').replace(/wasm-cairo\.js$/, 'wasm-cairo_bg.wasm')) });
    const out = String(cairo.runTests(source + generated, false, '', false, false, true, '', false, false));
    expect(out).toMatch(/test result: ok\. 5 passed; 0 failed/);
  });
});
