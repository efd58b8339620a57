import type { CID } from 'multiformats/cid';

/* CARv1 framing (https://ipld.io/specs/transport/car/carv1/), written by hand so a CAR streams a block at a time: the trustless gateway (trustless-gateway.ts) and the Pinata replica target (replica-target-pinata.ts). */

/** Unsigned LEB128, as CAR section lengths are written. */
export function varint(n: number): Uint8Array {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Uint8Array.from(out);
}

/** The CARv1 header, dag-cbor `{roots: [root], version: 1}` (keys in dag-cbor's order). */
export function carHeader(root: CID): Uint8Array {
  const link = Uint8Array.of(0, ...root.bytes); // tag 42: the identity multibase prefix, then the CID
  const cbor = Uint8Array.of(
    0xa2, // map(2)
    0x65,
    ...new TextEncoder().encode('roots'),
    0x81, // array(1)
    0xd8,
    0x2a, // tag(42)
    ...(link.length < 24 ? [0x40 + link.length] : [0x58, link.length]),
    ...link,
    0x67,
    ...new TextEncoder().encode('version'),
    0x01,
  );
  return Uint8Array.from([...varint(cbor.length), ...cbor]);
}

/** A block's section header: varint(length of CID + bytes) ‖ CID; the block's bytes follow. */
export function carSectionHead(cid: CID, length: number): Uint8Array {
  const len = varint(cid.bytes.length + length);
  const out = new Uint8Array(len.length + cid.bytes.length);
  out.set(len);
  out.set(cid.bytes, len.length);
  return out;
}
