// The ERC-20 the local chain B ledger stands for (lib/chains/chain-b/ledger.ts): the semantics of
// OpenZeppelin Contracts for Cairo v1.0.0's ERC20Component for what the ledger keeps — balances,
// transfer, the bridge's permissioned mint, the warp route's burn, the Transfer event and the revert strings — in one
// self-contained file that `wasm-cairo` (Cairo 2.8.2) compiles and tests inside `npm test`
// (test/unit/chains/chain-b-cairo.test.ts, which also checks the ledger's strings against it).
use starknet::ContractAddress;

#[starknet::interface]
pub trait IERC20<TState> {
    fn symbol(self: @TState) -> felt252;
    fn decimals(self: @TState) -> u8;
    fn total_supply(self: @TState) -> u256;
    fn balance_of(self: @TState, account: ContractAddress) -> u256;
    fn transfer(ref self: TState, recipient: ContractAddress, amount: u256) -> bool;
}

/// StarkGate's bridged tokens: only the bridge mints (on an L1→L2 deposit message).
#[starknet::interface]
pub trait IMintable<TState> {
    fn permissioned_mint(ref self: TState, account: ContractAddress, amount: u256);
}

/// Hyperlane's synthetic warp token (HypErc20): `transfer_remote` first burns the amount from the
/// caller (TokenRouter's transfer_from_sender hook → ERC20Component::burn), then dispatches. The
/// ledger's transfer_remote does this burn; the dispatch is not part of this file.
#[starknet::interface]
pub trait IWarpBurn<TState> {
    fn burn_from_sender(ref self: TState, amount: u256);
}

#[starknet::contract]
pub mod ERC20 {
    use starknet::{ContractAddress, contract_address_const, get_caller_address};
    use starknet::storage::{Map, StorageMapReadAccess, StorageMapWriteAccess, StoragePointerReadAccess, StoragePointerWriteAccess};

    #[storage]
    struct Storage {
        symbol: felt252,
        decimals: u8,
        total_supply: u256,
        balances: Map<ContractAddress, u256>,
        minter: ContractAddress,
    }

    #[event]
    #[derive(Drop, PartialEq, starknet::Event)]
    pub enum Event {
        Transfer: Transfer,
    }

    #[derive(Drop, PartialEq, starknet::Event)]
    pub struct Transfer {
        #[key]
        pub from: ContractAddress,
        #[key]
        pub to: ContractAddress,
        pub value: u256,
    }

    fn is_zero(a: ContractAddress) -> bool {
        let f: felt252 = a.into();
        f == 0
    }

    #[constructor]
    fn constructor(ref self: ContractState, symbol: felt252, decimals: u8, minter: ContractAddress) {
        self.symbol.write(symbol);
        self.decimals.write(decimals);
        self.minter.write(minter);
    }

    #[abi(embed_v0)]
    impl ERC20Impl of super::IERC20<ContractState> {
        fn symbol(self: @ContractState) -> felt252 {
            self.symbol.read()
        }
        fn decimals(self: @ContractState) -> u8 {
            self.decimals.read()
        }
        fn total_supply(self: @ContractState) -> u256 {
            self.total_supply.read()
        }
        fn balance_of(self: @ContractState, account: ContractAddress) -> u256 {
            self.balances.read(account)
        }
        fn transfer(ref self: ContractState, recipient: ContractAddress, amount: u256) -> bool {
            let sender = get_caller_address();
            assert(!is_zero(sender), 'ERC20: transfer from 0');
            assert(!is_zero(recipient), 'ERC20: transfer to 0');
            self.update(sender, recipient, amount);
            true
        }
    }

    #[abi(embed_v0)]
    impl MintableImpl of super::IMintable<ContractState> {
        fn permissioned_mint(ref self: ContractState, account: ContractAddress, amount: u256) {
            assert(get_caller_address() == self.minter.read(), 'Only minter');
            assert(!is_zero(account), 'ERC20: mint to 0');
            self.update(contract_address_const::<0>(), account, amount);
        }
    }

    #[abi(embed_v0)]
    impl WarpBurnImpl of super::IWarpBurn<ContractState> {
        fn burn_from_sender(ref self: ContractState, amount: u256) {
            let account = get_caller_address();
            assert(!is_zero(account), 'ERC20: burn from 0');
            self.update(account, contract_address_const::<0>(), amount);
        }
    }

    #[generate_trait]
    impl InternalImpl of InternalTrait {
        /// OpenZeppelin's ERC20Component::update: debit (or mint), credit, Transfer.
        fn update(ref self: ContractState, from: ContractAddress, to: ContractAddress, amount: u256) {
            if is_zero(from) {
                self.total_supply.write(self.total_supply.read() + amount);
            } else {
                let from_balance = self.balances.read(from);
                assert(from_balance >= amount, 'ERC20: insufficient balance');
                self.balances.write(from, from_balance - amount);
            }
            if is_zero(to) {
                self.total_supply.write(self.total_supply.read() - amount);
            } else {
                let to_balance = self.balances.read(to);
                self.balances.write(to, to_balance + amount);
            }
            self.emit(Transfer { from, to, value: amount });
        }
    }
}

#[cfg(test)]
pub mod tests {
    use starknet::{ContractAddress, contract_address_const};
    use starknet::testing::{pop_log, set_contract_address};
    use starknet::syscalls::deploy_syscall;
    use super::{ERC20, IERC20Dispatcher, IERC20DispatcherTrait, IMintableDispatcher, IMintableDispatcherTrait, IWarpBurnDispatcher, IWarpBurnDispatcherTrait};

    // The revert tests whose strings the local ledger must return are generated from the
    // ledger's own constants and appended here by test/unit/chains/chain-b-cairo.test.ts.

    pub fn minter() -> ContractAddress {
        contract_address_const::<'bridge'>()
    }
    pub fn alice() -> ContractAddress {
        contract_address_const::<'alice'>()
    }
    pub fn bob() -> ContractAddress {
        contract_address_const::<'bob'>()
    }

    pub fn deploy() -> ContractAddress {
        let calldata = array!['STRK', 18, minter().into()];
        let (address, _) = deploy_syscall(ERC20::TEST_CLASS_HASH.try_into().unwrap(), 0, calldata.span(), false).unwrap();
        address
    }

    pub fn mint(token: ContractAddress, to: ContractAddress, amount: u256) {
        set_contract_address(minter());
        IMintableDispatcher { contract_address: token }.permissioned_mint(to, amount);
    }

    #[test]
    fn mint_then_transfer_moves_exact_amounts_and_emits_transfer() {
        let token = deploy();
        let erc20 = IERC20Dispatcher { contract_address: token };
        mint(token, alice(), 1000);
        assert(erc20.balance_of(alice()) == 1000, 'minted');
        assert(erc20.total_supply() == 1000, 'supply');
        assert(pop_log(token) == Option::Some(ERC20::Event::Transfer(ERC20::Transfer { from: contract_address_const::<0>(), to: alice(), value: 1000 })), 'mint event');
        set_contract_address(alice());
        assert(erc20.transfer(bob(), 400), 'transfer returns true');
        assert(erc20.balance_of(alice()) == 600, 'alice');
        assert(erc20.balance_of(bob()) == 400, 'bob');
        assert(erc20.total_supply() == 1000, 'supply unchanged');
        assert(pop_log(token) == Option::Some(ERC20::Event::Transfer(ERC20::Transfer { from: alice(), to: bob(), value: 400 })), 'transfer event');
    }

    #[test]
    fn the_warp_burn_lowers_balance_and_total_supply_and_emits_transfer_to_zero() {
        let token = deploy();
        let erc20 = IERC20Dispatcher { contract_address: token };
        mint(token, alice(), 1000);
        let _ = pop_log::<ERC20::Event>(token);
        set_contract_address(alice());
        IWarpBurnDispatcher { contract_address: token }.burn_from_sender(300);
        assert(erc20.balance_of(alice()) == 700, 'balance');
        assert(erc20.total_supply() == 700, 'supply');
        assert(pop_log(token) == Option::Some(ERC20::Event::Transfer(ERC20::Transfer { from: alice(), to: contract_address_const::<0>(), value: 300 })), 'burn event');
    }

    #[test]
    #[should_panic(expected: ('Only minter', 'ENTRYPOINT_FAILED'))]
    fn only_the_bridge_mints() {
        let token = deploy();
        set_contract_address(alice());
        IMintableDispatcher { contract_address: token }.permissioned_mint(alice(), 1);
    }
}
