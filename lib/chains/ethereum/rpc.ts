import { addressOf } from './abi.ts';

/**
 * A small Ethereum JSON-RPC client over fetch: the reads the StarkGate watcher needs. A
 * transport failure, a non-JSON or error answer is EthereumUnavailable (502 at the edge, retried
 * by the relayer); "not found" is null, as the node says it.
 */
export class EthereumUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EthereumUnavailable';
  }
}

export interface EthLog {
  address: string;
  topics: string[];
  data: string;
  logIndex: number;
}

export interface EthReceipt {
  transactionHash: string;
  /** 1 succeeded, 0 reverted. */
  status: number;
  blockNumber: bigint;
  /** The block the node found it in: after a reorganization, a node behind may still answer the old fork's. */
  blockHash: string;
  from: string;
  to: string | null;
  logs: EthLog[];
}

export interface EthTransaction {
  hash: string;
  from: string;
  to: string | null;
  value: bigint;
  input: string;
  blockNumber: bigint | null;
}

interface RawLog {
  address: string;
  topics: string[];
  data: string;
  logIndex: string;
}

const big = (v: unknown, what: string): bigint => {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v)) throw new EthereumUnavailable(`Ethereum RPC: ${what} is not a quantity`);
  return BigInt(v);
};
const addr = (v: unknown, what: string): string => {
  const a = typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v) ? addressOf(v) : undefined;
  if (!a) throw new EthereumUnavailable(`Ethereum RPC: ${what} is not an address`);
  return a;
};

const hash32 = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(v)) throw new EthereumUnavailable(`Ethereum RPC: ${what} is not a 32-byte hash`);
  return v.toLowerCase();
};

export interface EthereumRpcOptions {
  url: string;
  /** Transport override (tests answer offline with recorded responses). */
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export class EthereumRpc {
  readonly #url: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  #id = 0;

  constructor(opts: EthereumRpcOptions) {
    this.#url = opts.url;
    this.#fetch = opts.fetch ?? fetch;
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
  }

  async call(method: string, params: unknown[]): Promise<unknown> {
    let body: { result?: unknown; error?: { code: number; message: string } };
    try {
      const res = await this.#fetch(this.#url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      if (!res.ok) throw new EthereumUnavailable(`Ethereum RPC ${method}: HTTP ${res.status}`);
      body = (await res.json()) as typeof body;
    } catch (e) {
      if (e instanceof EthereumUnavailable) throw e;
      throw new EthereumUnavailable(`Ethereum RPC ${method}: ${e instanceof Error ? e.message : 'unreachable'}`, { cause: e });
    }
    if (body.error) throw new EthereumUnavailable(`Ethereum RPC ${method}: ${body.error.message} (${body.error.code})`);
    if (!('result' in body)) throw new EthereumUnavailable(`Ethereum RPC ${method}: no result`);
    return body.result;
  }

  async chainId(): Promise<bigint> {
    return big(await this.call('eth_chainId', []), 'eth_chainId');
  }

  async blockNumber(): Promise<bigint> {
    return big(await this.call('eth_blockNumber', []), 'eth_blockNumber');
  }

  async getTransactionByHash(hash: string): Promise<EthTransaction | null> {
    const t = (await this.call('eth_getTransactionByHash', [hash])) as Record<string, unknown> | null;
    if (!t) return null;
    return {
      hash: String(t.hash),
      from: addr(t.from, 'from'),
      to: t.to ? addr(t.to, 'to') : null,
      value: big(t.value, 'value'),
      input: String(t.input ?? '0x'),
      blockNumber: t.blockNumber ? big(t.blockNumber, 'blockNumber') : null,
    };
  }

  /** The hash of the canonical block at `height`; null above the head. */
  async getBlockHash(height: bigint): Promise<string | null> {
    const b = (await this.call('eth_getBlockByNumber', [`0x${height.toString(16)}`, false])) as Record<string, unknown> | null;
    return b ? hash32(b.hash, 'block hash') : null;
  }

  /** The receipt of a mined transaction; null while it is unknown or pending. */
  async getTransactionReceipt(hash: string): Promise<EthReceipt | null> {
    const r = (await this.call('eth_getTransactionReceipt', [hash])) as Record<string, unknown> | null;
    if (!r || !r.blockNumber) return null;
    const logs = Array.isArray(r.logs) ? (r.logs as RawLog[]) : [];
    return {
      transactionHash: String(r.transactionHash),
      status: Number(big(r.status, 'status')),
      blockNumber: big(r.blockNumber, 'blockNumber'),
      blockHash: hash32(r.blockHash, 'blockHash'),
      from: addr(r.from, 'from'),
      to: r.to ? addr(r.to, 'to') : null,
      logs: logs.map((l) => ({
        address: addr(l.address, 'log address'),
        topics: l.topics.map((t) => t.toLowerCase()),
        data: l.data,
        logIndex: Number(big(l.logIndex, 'logIndex')),
      })),
    };
  }
}
