pragma circom 2.1.0;

include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/bitify.circom";

// Storage guard: knowledge of a password whose commitment the server stores.
//
// Encoding (lib/client/password-proof.ts does exactly this):
//   d      = SHA-256(UTF-8 bytes of the password)          (32 bytes)
//   pw_hi  = d[0..16]  read as a big-endian unsigned integer (< 2^128)
//   pw_lo  = d[16..32] read as a big-endian unsigned integer (< 2^128)
//   salt   = any field element (< r), chosen at random by the client
//   commitment = Poseidon(pw_lo, pw_hi, salt)
//
// Two 128-bit halves because a 256-bit digest does not fit in the ~254-bit field; the range
// checks stop a prover from using a non-canonical split (e.g. pw_lo + k*2^128) of the same sum.
// The commitment is an output so it is publicSignals[0]; the verifier compares it with the
// stored commitment.
template Password() {
    signal input pw_lo;
    signal input pw_hi;
    signal input salt;
    signal output commitment;

    component loBits = Num2Bits(128);
    loBits.in <== pw_lo;
    component hiBits = Num2Bits(128);
    hiBits.in <== pw_hi;

    component h = Poseidon(3);
    h.inputs[0] <== pw_lo;
    h.inputs[1] <== pw_hi;
    h.inputs[2] <== salt;
    commitment <== h.out;
}

component main = Password();
