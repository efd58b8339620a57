// Chain B's proof registry: the contract whose semantics the `local` adapter emulates and whose
// ABI (`PROOF_REGISTRY_ABI` in registry.ts) the `rpc` adapter calls. Cairo 2 / Scarb, package
// `shroud`, module `proof_registry`. Not compiled by this repository (no Scarb here); deploy it
// with `sncast`/`starkli` and set CHAINB_REGISTRY_ADDRESS.

#[derive(Copy, Drop, Serde, starknet::Store)]
pub struct Proof {
    pub proof_hash: felt252,
    pub zk_id: felt252,
    pub owner: starknet::ContractAddress,
    pub timestamp: u64,
}

#[starknet::interface]
pub trait IProofRegistry<TContractState> {
    fn store_proof(ref self: TContractState, proof_id: felt252, proof_hash: felt252, zk_id: felt252);
    fn get_proof(self: @TContractState, proof_id: felt252) -> Proof;
    fn verify_proof_exists(self: @TContractState, proof_id: felt252) -> bool;
}

#[starknet::contract]
pub mod ProofRegistry {
    use starknet::storage::{Map, StorageMapReadAccess, StorageMapWriteAccess};
    use starknet::{get_block_timestamp, get_caller_address};
    use super::Proof;

    #[storage]
    struct Storage {
        proofs: Map<felt252, Proof>,
    }

    #[event]
    #[derive(Drop, starknet::Event)]
    pub enum Event {
        ProofStored: ProofStored,
    }

    #[derive(Drop, starknet::Event)]
    pub struct ProofStored {
        #[key]
        pub proof_id: felt252,
        pub proof_hash: felt252,
        pub zk_id: felt252,
        pub owner: starknet::ContractAddress,
        pub timestamp: u64,
    }

    #[abi(embed_v0)]
    impl ProofRegistryImpl of super::IProofRegistry<ContractState> {
        fn store_proof(ref self: ContractState, proof_id: felt252, proof_hash: felt252, zk_id: felt252) {
            assert(proof_hash != 0, 'zero proof hash');
            assert(zk_id != 0, 'zero zk_id');
            assert(self.proofs.read(proof_id).proof_hash == 0, 'proof already exists');
            let owner = get_caller_address();
            let timestamp = get_block_timestamp();
            self.proofs.write(proof_id, Proof { proof_hash, zk_id, owner, timestamp });
            self.emit(ProofStored { proof_id, proof_hash, zk_id, owner, timestamp });
        }

        fn get_proof(self: @ContractState, proof_id: felt252) -> Proof {
            self.proofs.read(proof_id)
        }

        fn verify_proof_exists(self: @ContractState, proof_id: felt252) -> bool {
            self.proofs.read(proof_id).proof_hash != 0
        }
    }
}
