pragma circom 2.1.0;

include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";

// A committed value lies in a public range: min <= value <= max, with
// public commitment = Poseidon(value, blinding).
//
// Bit width: value, min and max are unsigned 64-bit integers (each is range-checked with
// Num2Bits(64), because circomlib's comparators are only sound for inputs below 2^n).
// publicSignals = [commitment, min, max] (outputs first, then public inputs).
template Range(n) {
    signal input value;
    signal input blinding;
    signal input min;
    signal input max;
    signal output commitment;

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
}

component main {public [min, max]} = Range(64);
