pragma circom 2.1.0;

include "circomlib/circuits/poseidon.circom";

// Withdrawal from a fixed-denomination shielded pool (the design of the well-studied mixers,
// with Poseidon for every hash):
//
//   commitment    = Poseidon(nullifier, secret)          the leaf the deposit appended
//   nullifierHash = Poseidon(nullifier)                  published once, at the withdrawal
//   root          = the Merkle root of a depth-20 Poseidon tree holding commitment
//
// Public inputs: root, nullifierHash, recipient, relayerFee, pool. recipient, relayerFee and pool
// take no part in any constraint of the statement; they are squared below so that they are bound
// to the proof (a Groth16 proof is malleable in any public input the constraints do not use), and
// anyone who changes them in flight invalidates it. pool is the pool the withdrawal is paid from
// (lib/transfer/statement.ts poolSignal): the verifier supplies its own pool's value, so a proof
// made for one pool does not verify for another, even one whose tree holds the same commitment.
//
// At level i, pathIndices[i] = 0 means the node is the left child, 1 the right child.
template Withdraw(depth) {
    signal input root;
    signal input nullifierHash;
    signal input recipient;
    signal input relayerFee;
    signal input pool;

    signal input nullifier;
    signal input secret;
    signal input pathElements[depth];
    signal input pathIndices[depth];

    component leaf = Poseidon(2);
    leaf.inputs[0] <== nullifier;
    leaf.inputs[1] <== secret;

    component nh = Poseidon(1);
    nh.inputs[0] <== nullifier;
    nh.out === nullifierHash;

    signal node[depth + 1];
    signal swap[depth];
    component h[depth];
    node[0] <== leaf.out;
    for (var i = 0; i < depth; i++) {
        pathIndices[i] * (1 - pathIndices[i]) === 0;
        swap[i] <== pathIndices[i] * (pathElements[i] - node[i]);
        h[i] = Poseidon(2);
        h[i].inputs[0] <== node[i] + swap[i];
        h[i].inputs[1] <== pathElements[i] - swap[i];
        node[i + 1] <== h[i].out;
    }
    node[depth] === root;

    signal recipientSquare;
    signal relayerFeeSquare;
    recipientSquare <== recipient * recipient;
    relayerFeeSquare <== relayerFee * relayerFee;
    signal poolSquare;
    poolSquare <== pool * pool;
}

component main {public [root, nullifierHash, recipient, relayerFee, pool]} = Withdraw(20);
