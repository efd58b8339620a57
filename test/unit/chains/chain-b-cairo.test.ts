import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ec } from 'starknet';
import { publicKeyOf, verifyStarkSignature } from '#lib/chains/chain-b/account.ts';
import { ACCOUNT_REVERTS, ERC20_REVERTS } from '#lib/local/chain-b/contracts.ts';

/**
 * The ERC-20 the local chain B ledger stands for (lib/chains/chain-b/erc20.cairo), compiled and
 * tested with the Cairo 2.8.2 compiler and test runner as WebAssembly (`wasm-cairo`). The revert
 * tests (transfer, the warp route's burn, mint) are generated from the ledger's own strings (ERC20_REVERTS, lib/local/chain-b/contracts.ts): each passes only if the
 * contract panics with exactly that string, so the ledger's reasons are the contract's.
 * Slow (the compiler runs in WebAssembly, about 20 CPU-seconds): both contracts, each in a module of
 * its own, go through one `runTests`, so Cairo's core library is compiled once for both (two runs
 * cost 28 CPU-seconds). Each test below reads its contract's tests by name from that one run.
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
    use super::{IERC20Dispatcher, IERC20DispatcherTrait, IWarpBurnDispatcher, IWarpBurnDispatcherTrait};
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
    #[should_panic(expected: (${cairoString(ERC20_REVERTS.insufficientBalance)}, 'ENTRYPOINT_FAILED'))]
    fn ledger_warp_burn_beyond_balance() {
        let token = deploy();
        mint(token, alice(), 10);
        set_contract_address(alice());
        IWarpBurnDispatcher { contract_address: token }.burn_from_sender(11);
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

/**
 * The account (account.cairo): a real Stark signature made here with starknet.js over a
 * transaction-hash-sized felt, which the ledger's own check (verifyStarkSignature) accepts, must
 * be accepted by the contract's `check_ecdsa_signature`; the tampered ones the ledger refuses
 * must make `__validate__` panic with the ledger's string.
 */
const accountSource = readFileSync(join(import.meta.dirname, '../../../lib/chains/chain-b/account.cairo'), 'utf8');
const privateKey = '0x2dccce1da22003777062ee0870e9881b460a8b7eca276870f57c601f182136c';
const publicKey = publicKeyOf(privateKey);
const txHash = '0x5a4d1c7c3b6bb8b4fe7c3a6f6f0c2f1e9e8d7c6b5a493827160504030201aa';
const otherHash = '0x5a4d1c7c3b6bb8b4fe7c3a6f6f0c2f1e9e8d7c6b5a493827160504030201ab';
const signature = ec.starkCurve.sign(txHash, privateKey);
const [r, s] = [`0x${signature.r.toString(16)}`, `0x${signature.s.toString(16)}`];

const accountGenerated = `
#[cfg(test)]
mod ledger_signatures {
    use starknet::contract_address_const;
    use starknet::testing::{set_contract_address, set_signature, set_transaction_hash};
    use starknet::VALIDATED;
    use super::{ISRC6Dispatcher, ISRC6DispatcherTrait};
    use super::tests::deploy;

    const PUBLIC_KEY: felt252 = ${publicKey};
    const HASH: felt252 = ${txHash};
    const OTHER_HASH: felt252 = ${otherHash};
    const R: felt252 = ${r};
    const S: felt252 = ${s};

    #[test]
    fn is_valid_signature_accepts_the_real_signature_and_nothing_else() {
        let account = ISRC6Dispatcher { contract_address: deploy(PUBLIC_KEY) };
        assert(account.is_valid_signature(HASH, array![R, S]) == VALIDATED, 'valid');
        assert(account.is_valid_signature(OTHER_HASH, array![R, S]) == 0, 'other hash');
        assert(account.is_valid_signature(HASH, array![R, S + 1]) == 0, 'tampered s');
        assert(account.is_valid_signature(HASH, array![R]) == 0, 'short');
        let stranger = ISRC6Dispatcher { contract_address: deploy(PUBLIC_KEY + 1) };
        assert(stranger.is_valid_signature(HASH, array![R, S]) == 0, 'other key');
    }

    #[test]
    fn validate_accepts_the_signed_transaction() {
        let account = ISRC6Dispatcher { contract_address: deploy(PUBLIC_KEY) };
        set_transaction_hash(HASH);
        set_signature(array![R, S].span());
        assert(account.__validate__(array![]) == VALIDATED, 'validated');
    }

    #[test]
    #[should_panic(expected: (${cairoString(ACCOUNT_REVERTS.invalidSignature)}, 'ENTRYPOINT_FAILED'))]
    fn ledger_invalid_signature() {
        let account = ISRC6Dispatcher { contract_address: deploy(PUBLIC_KEY) };
        set_transaction_hash(OTHER_HASH);
        set_signature(array![R, S].span());
        account.__validate__(array![]);
    }

    #[test]
    #[should_panic(expected: (${cairoString(ACCOUNT_REVERTS.invalidCaller)}, 'ENTRYPOINT_FAILED'))]
    fn ledger_execute_only_by_the_protocol() {
        let account = ISRC6Dispatcher { contract_address: deploy(PUBLIC_KEY) };
        set_contract_address(contract_address_const::<'attacker'>());
        account.__execute__(array![]);
    }
}
`;

/** The runner's report of both contracts, made once (the first test to ask runs it). */
let report: Promise<string> | undefined;
const runBoth = () =>
  (report ??= (async () => {
    const cairo = await import('wasm-cairo');
    cairo.initSync({ module: readFileSync(require.resolve('wasm-cairo').replace(/wasm-cairo\.js$/, 'wasm-cairo_bg.wasm')) });
    const program = `mod erc20 {\n${source}\n${generated}\n}\nmod account {\n${accountSource}\n${accountGenerated}\n}\n`;
    return String(cairo.runTests(program, false, '', false, false, true, '', false, false));
  })());
/** The names of the tests of module `mod` that the runner reports as passed (`test <crate>::<mod>::<name> ... ok`). */
const passed = (out: string, mod: string) => [...out.matchAll(new RegExp(`^test \\w+::${mod}::(\\S+) \\.\\.\\. ok`, 'gm'))].map((m) => m[1]).sort();

describe('chain B contracts in Cairo (wasm-cairo)', () => {
  it("account.cairo checks the same Stark signatures as the ledger, with the ledger's revert strings", { timeout: 1_200_000 }, async () => {
    // The same triple on the ledger's side, so that both sides are tested on one signature.
    expect(verifyStarkSignature(txHash, [r, s], publicKey)).toBe(true);
    expect(verifyStarkSignature(otherHash, [r, s], publicKey)).toBe(false);
    const out = await runBoth();
    // Both contracts' tests, none failed (erc20.cairo's 7, account.cairo's 5).
    expect(out).toMatch(/test result: ok\. 12 passed; 0 failed/);
    expect(passed(out, 'account'), out).toEqual(
      [
        'ledger_signatures::is_valid_signature_accepts_the_real_signature_and_nothing_else',
        'ledger_signatures::ledger_execute_only_by_the_protocol',
        'ledger_signatures::ledger_invalid_signature',
        'ledger_signatures::validate_accepts_the_signed_transaction',
        ...ownTests(accountSource, 'tests'),
      ].sort(),
    );
  });

  it("erc20.cairo compiles and its tests pass, the ledger's revert strings included", { timeout: 1_200_000 }, async () => {
    const out = await runBoth();
    expect(out).toMatch(/test result: ok\. 12 passed; 0 failed/);
    expect(passed(out, 'erc20'), out).toEqual(
      [
        'ledger_reverts::ledger_insufficient_balance',
        'ledger_reverts::ledger_transfer_to_zero',
        'ledger_reverts::ledger_u256_overflow',
        'ledger_reverts::ledger_warp_burn_beyond_balance',
        ...ownTests(source, 'tests'),
      ].sort(),
    );
  });
});

/** `module::name` of each `#[test]` function in a contract's own test module. */
function ownTests(cairoSource: string, module: string): string[] {
  return [...cairoSource.matchAll(/#\[test\][\s\S]*?fn (\w+)/g)].map((m) => `${module}::${m[1]}`);
}
