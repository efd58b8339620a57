/**
 * BN254 (bn128), the curve of the Groth16 circuits: its scalar field r (the field every circuit
 * signal, Poseidon input and public signal lives in) and its base field q (a point's coordinates).
 */
export const BN254_R = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
export const BN254_Q = 21888242871839275222246405745257275088696311157297823662689037894645226208583n;
