/** blake-hash 2 (untyped JavaScript, circomlibjs's BLAKE-512): the reference test/unit/zk/blake512.test.ts compares with. */
declare module 'blake-hash' {
  interface BlakeHash {
    update(data: Uint8Array): BlakeHash;
    digest(encoding: 'hex'): string;
  }
  export default function createBlakeHash(algorithm: 'blake512'): BlakeHash;
}
