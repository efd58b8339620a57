pragma circom 2.1.0;

include "circomlib/circuits/poseidon.circom";

// Membership in a Poseidon Merkle tree of fixed depth.
//
// At level i, pathIndices[i] = 0 means the current node is the left child
// (parent = Poseidon(node, pathElements[i])), 1 means it is the right child
// (parent = Poseidon(pathElements[i], node)). The leaf is used as is (hash it before
// inserting if it is not already a field element derived from a hash).
// The root is an output, so it is publicSignals[0]; the verifier compares it with the
// root it trusts.
template Membership(depth) {
    signal input leaf;
    signal input pathElements[depth];
    signal input pathIndices[depth];
    signal output root;

    signal node[depth + 1];
    signal swap[depth];
    component h[depth];

    node[0] <== leaf;
    for (var i = 0; i < depth; i++) {
        // Each index must be a bit, or the swap below would mix the two children.
        pathIndices[i] * (1 - pathIndices[i]) === 0;

        // One multiplication selects the order: swap = idx * (sibling - node).
        swap[i] <== pathIndices[i] * (pathElements[i] - node[i]);
        h[i] = Poseidon(2);
        h[i].inputs[0] <== node[i] + swap[i];
        h[i].inputs[1] <== pathElements[i] - swap[i];
        node[i + 1] <== h[i].out;
    }
    root <== node[depth];
}

component main = Membership(20);
