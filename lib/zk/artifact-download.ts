/**
 * The circuit artifacts as the API serves them to clients that prove on their own machine
 * (`GET /api/zk-toolkit/proof/circuits/:name/:artifact`): where each lives, its bytes (read once
 * per warm instance) and the HTTP headers that let browsers and CDNs cache it for good.
 */
import { readFileSync } from 'node:fs';
import { errors } from '#lib/errors.ts';
import { artifactPath, listCircuits, getCircuit, type ArtifactKind, type CircuitSummary } from './circuits.ts';

export const ARTIFACT_KINDS: readonly ArtifactKind[] = ['wasm', 'zkey', 'vkey'];

const CONTENT_TYPES: Record<ArtifactKind, string> = {
  wasm: 'application/wasm',
  zkey: 'application/octet-stream',
  vkey: 'application/json',
};

export const artifactUrl = (circuit: string, kind: ArtifactKind) => `/api/zk-toolkit/proof/circuits/${encodeURIComponent(circuit)}/${kind}`;

export interface ArtifactLink {
  /** Path of the download route, relative to the API's base URL. */
  url: string;
  file: string;
  bytes: number;
  /** Hex SHA-256 of the file: a client may check what it downloaded (it is also the ETag). */
  sha256: string;
}

export type CircuitListing = Omit<CircuitSummary, 'artifacts'> & { artifacts: Record<ArtifactKind, ArtifactLink> };

/** What proof/circuits answers: each circuit with the links to its three artifacts. */
export function circuitListing(): CircuitListing[] {
  return listCircuits().map((c) => {
    const files = getCircuit(c.name).artifacts;
    const link = (kind: ArtifactKind): ArtifactLink => ({ url: artifactUrl(c.name, kind), ...files[kind] });
    return { ...c, artifacts: { wasm: link('wasm'), zkey: link('zkey'), vkey: link('vkey') } };
  });
}

const isKind = (v: string): v is ArtifactKind => (ARTIFACT_KINDS as readonly string[]).includes(v);

const bytes = new Map<string, Buffer>();

/** One artifact's bytes and headers; an unknown circuit or artifact is 404 NOT_FOUND. */
export function artifactDownload(circuit: string, kind: string): { bytes: Buffer; headers: Record<string, string> } {
  const known = listCircuits().some((c) => c.name === circuit);
  if (!known || !isKind(kind)) throw errors.notFound(`no artifact ${kind.slice(0, 16)} for circuit ${circuit.slice(0, 64)}`);
  const file = getCircuit(circuit).artifacts[kind];
  const key = `${circuit}/${kind}`;
  let body = bytes.get(key);
  if (!body) {
    body = readFileSync(artifactPath(circuit, kind));
    bytes.set(key, body);
  }
  return {
    bytes: body,
    headers: {
      'content-type': CONTENT_TYPES[kind],
      // The sha256 names the content, and a new ceremony changes it: safe to cache forever.
      'cache-control': 'public, max-age=31536000, immutable',
      etag: `"${file.sha256}"`,
      'content-disposition': `attachment; filename="${file.file}"`,
    },
  };
}
