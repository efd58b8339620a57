pragma circom 2.1.0;

include "circomlib/circuits/poseidon.circom";

// Group membership with a scope-bound nullifier, for attestations (lib/attest), as in Semaphore:
// the leaf is the member's identity commitment Poseidon(secret), computed here from the secret,
// so only the holder of the secret can prove; nullifier = Poseidon(secret, scope).
// Tree: as membership.circom (depth 20, pathIndices[i] = 1 when the node is the right child).
// publicSignals = [root, nullifier, scope].
template MembershipScoped(depth) {
    signal input secret;
    signal input pathElements[depth];
    signal input pathIndices[depth];
    signal input scope;
    signal output root;
    signal output nullifier;

    component leafHash = Poseidon(1);
    leafHash.inputs[0] <== secret;

    signal node[depth + 1];
    signal swap[depth];
    component h[depth];

    node[0] <== leafHash.out;
    for (var i = 0; i < depth; i++) {
        pathIndices[i] * (1 - pathIndices[i]) === 0;
        swap[i] <== pathIndices[i] * (pathElements[i] - node[i]);
        h[i] = Poseidon(2);
        h[i].inputs[0] <== node[i] + swap[i];
        h[i].inputs[1] <== pathElements[i] - swap[i];
        node[i + 1] <== h[i].out;
    }
    root <== node[depth];

    component n1 = Poseidon(2);
    n1.inputs[0] <== secret;
    n1.inputs[1] <== scope;
    nullifier <== n1.out;
}

component main {public [scope]} = MembershipScoped(20);
