pragma circom 2.1.0;

include "circomlib/circuits/poseidon.circom";

// Knowledge of a preimage with a scope-bound nullifier, for attestations (lib/attest):
//   hash = Poseidon(secret), nullifier = Poseidon(secret, scope).
// publicSignals = [hash, nullifier, scope].
template PreimageScoped() {
    signal input secret;
    signal input scope;
    signal output hash;
    signal output nullifier;

    component h = Poseidon(1);
    h.inputs[0] <== secret;
    hash <== h.out;

    component n1 = Poseidon(2);
    n1.inputs[0] <== secret;
    n1.inputs[1] <== scope;
    nullifier <== n1.out;
}

component main {public [scope]} = PreimageScoped();
