// The account the local chain B ledger stands for (lib/chains/chain-b/ledger.ts): the semantics of
// OpenZeppelin Contracts for Cairo v1.0.0's AccountComponent for what the ledger checks — the
// public key set by the constructor, `__validate__` / `__validate_deploy_account__` checking the
// Stark-curve ECDSA signature (r, s) over the transaction hash with that key, `__execute__`
// callable only by the protocol (caller 0) and the revert strings — in one self-contained file
// that `wasm-cairo` (Cairo 2.8.2) compiles and tests inside `npm test`
// (test/unit/chains/chain-b-cairo.test.ts, which also checks the ledger's strings against it).
// The nonce is the protocol's (the sequencer checks and increments it), as on Starknet.
use starknet::account::Call;

#[starknet::interface]
pub trait ISRC6<TState> {
    fn __execute__(self: @TState, calls: Array<Call>) -> Array<Span<felt252>>;
    fn __validate__(self: @TState, calls: Array<Call>) -> felt252;
    fn is_valid_signature(self: @TState, hash: felt252, signature: Array<felt252>) -> felt252;
}

#[starknet::interface]
pub trait IDeployable<TState> {
    fn __validate_deploy__(self: @TState, class_hash: felt252, contract_address_salt: felt252, public_key: felt252) -> felt252;
    fn get_public_key(self: @TState) -> felt252;
}

#[starknet::contract(account)]
pub mod Account {
    use core::ecdsa::check_ecdsa_signature;
    use starknet::account::Call;
    use starknet::storage::{StoragePointerReadAccess, StoragePointerWriteAccess};
    use starknet::syscalls::call_contract_syscall;
    use starknet::{get_caller_address, get_tx_info, SyscallResultTrait, VALIDATED};

    #[storage]
    struct Storage {
        public_key: felt252,
    }

    #[constructor]
    fn constructor(ref self: ContractState, public_key: felt252) {
        self.public_key.write(public_key);
    }

    #[abi(embed_v0)]
    impl SRC6Impl of super::ISRC6<ContractState> {
        fn __execute__(self: @ContractState, calls: Array<Call>) -> Array<Span<felt252>> {
            assert(get_caller_address().into() == 0, 'Account: invalid caller');
            let mut results = array![];
            for call in calls.span() {
                let Call { to, selector, calldata } = *call;
                results.append(call_contract_syscall(to, selector, calldata).unwrap_syscall());
            };
            results
        }

        fn __validate__(self: @ContractState, calls: Array<Call>) -> felt252 {
            self.validate_transaction()
        }

        fn is_valid_signature(self: @ContractState, hash: felt252, signature: Array<felt252>) -> felt252 {
            if self.is_valid(hash, signature.span()) {
                VALIDATED
            } else {
                0
            }
        }
    }

    #[abi(embed_v0)]
    impl DeployableImpl of super::IDeployable<ContractState> {
        fn __validate_deploy__(self: @ContractState, class_hash: felt252, contract_address_salt: felt252, public_key: felt252) -> felt252 {
            self.validate_transaction()
        }

        fn get_public_key(self: @ContractState) -> felt252 {
            self.public_key.read()
        }
    }

    #[generate_trait]
    impl InternalImpl of InternalTrait {
        fn validate_transaction(self: @ContractState) -> felt252 {
            let tx_info = get_tx_info().unbox();
            assert(self.is_valid(tx_info.transaction_hash, tx_info.signature), 'Account: invalid signature');
            VALIDATED
        }

        /// OpenZeppelin's `is_valid_stark_signature`: exactly (r, s), checked with the stored key.
        fn is_valid(self: @ContractState, hash: felt252, signature: Span<felt252>) -> bool {
            if signature.len() != 2 {
                return false;
            }
            check_ecdsa_signature(hash, self.public_key.read(), *signature.at(0), *signature.at(1))
        }
    }
}

#[cfg(test)]
pub mod tests {
    use starknet::ContractAddress;
    use starknet::syscalls::deploy_syscall;
    use super::{Account, IDeployableDispatcher, IDeployableDispatcherTrait};

    // The signature tests (a real Stark signature made by starknet.js, and the ledger's revert
    // strings) are generated and appended here by test/unit/chains/chain-b-cairo.test.ts.

    pub fn deploy(public_key: felt252) -> ContractAddress {
        let (address, _) = deploy_syscall(Account::TEST_CLASS_HASH.try_into().unwrap(), 0, array![public_key].span(), false).unwrap();
        address
    }

    #[test]
    fn constructor_stores_the_public_key() {
        let account = deploy(0x1234);
        assert(IDeployableDispatcher { contract_address: account }.get_public_key() == 0x1234, 'key');
    }
}
