pragma circom 2.1.0;

include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";

// The range circuit with a scope-bound nullifier, for attestations (lib/attest):
//   min <= value <= max (unsigned 64-bit), commitment = Poseidon(value, blinding),
//   nullifier = Poseidon(blinding, scope).
// The blinding is the subject's secret: the same commitment attested twice in one scope gives
// the same nullifier, and the nullifier says nothing about the value.
// publicSignals = [commitment, nullifier, min, max, scope] (outputs first, then public inputs
// in declaration order).
template RangeScoped(n) {
    signal input value;
    signal input blinding;
    signal input min;
    signal input max;
    signal input scope;
    signal output commitment;
    signal output nullifier;

    component vBits = Num2Bits(n);
    vBits.in <== value;
    component minBits = Num2Bits(n);
    minBits.in <== min;
    component maxBits = Num2Bits(n);
    maxBits.in <== max;

    component geMin = LessEqThan(n);
    geMin.in[0] <== min;
    geMin.in[1] <== value;
    geMin.out === 1;

    component leMax = LessEqThan(n);
    leMax.in[0] <== value;
    leMax.in[1] <== max;
    leMax.out === 1;

    component h = Poseidon(2);
    h.inputs[0] <== value;
    h.inputs[1] <== blinding;
    commitment <== h.out;

    component n1 = Poseidon(2);
    n1.inputs[0] <== blinding;
    n1.inputs[1] <== scope;
    nullifier <== n1.out;
}

component main {public [min, max, scope]} = RangeScoped(64);
