pragma circom 2.1.0;

include "circomlib/circuits/poseidon.circom";

// Knowledge of a preimage: public hash = Poseidon(secret). The default circuit of
// /api/zk-toolkit/proof/generate. The hash is an output, so it is publicSignals[0].
template Preimage() {
    signal input secret;
    signal output hash;

    component h = Poseidon(1);
    h.inputs[0] <== secret;
    hash <== h.out;
}

component main = Preimage();
