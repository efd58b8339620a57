/**
 * The typed client of the whole API, for Node and browsers (fetch, WebCrypto; no Node-only API).
 * Every route is a method of `client.api`, typed by the generated operation table
 * (`operations.generated.ts`: the same route rows and zod schemas as the OpenAPI document). It keeps the
 * session cookie itself outside a browser, turns every error body into a `ShroudError`, retries
 * 429 and 503 with backoff (honouring `Retry-After`), sends an `Idempotency-Key` on the routes that
 * take one (the same key on every retry of one call), and reports upload and download progress.
 */
import { operations, type OperationId, type Operations } from './operations.generated.ts';

export type { OperationId, Operations } from './operations.generated.ts';

/** Every error answer: `{error, message}` with the HTTP status, and `Retry-After` when given. */
export class ShroudError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    /** Seconds, from `Retry-After`. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ShroudError';
  }
}

export interface Progress {
  /** Bytes so far. */
  loaded: number;
  /** Bytes in all, when known. */
  total?: number;
}
export type ProgressListener = (p: Progress) => void;

export interface ClientOptions {
  baseUrl: string;
  fetch?: typeof fetch;
  /** Keep cookies in this client (Node, tests); in a browser the browser keeps them. Default: true outside a browser. */
  cookieJar?: boolean;
  /** A session cookie to start with (the CLI's saved session). */
  cookies?: Record<string, string>;
  /** How often a 429/503 is retried (default 3), and the first backoff in ms (default 500, doubled each time, jittered). */
  retries?: number;
  backoffMs?: number;
  /** Waits are capped at this many ms (default 30 s); a longer Retry-After gives up with the error. */
  maxWaitMs?: number;
  /** Cookies changed (the CLI saves its session file). */
  onCookies?: (cookies: Record<string, string>) => void;
}

export interface CallOptions {
  headers?: Record<string, string>;
  /** Defaults to a fresh random key on routes that take one. */
  idempotencyKey?: string;
  onUploadProgress?: ProgressListener;
  onDownloadProgress?: ProgressListener;
  signal?: AbortSignal;
  /** Sees the successful response (its headers) before its body is read. */
  onResponse?: (res: Response) => void;
}

type Defined<T> = T extends undefined ? never : T;
/** What a call takes: the path parameters, query and body its route has. */
export type Input<K extends OperationId> = (Operations[K]['params'] extends undefined ? { params?: undefined } : { params: Operations[K]['params'] }) &
  (Operations[K]['query'] extends undefined ? { query?: undefined } : { query?: Defined<Operations[K]['query']> }) &
  (Operations[K]['body'] extends undefined ? { body?: undefined } : { body?: Operations[K]['body'] });
export type Answer<K extends OperationId> = Operations[K]['answer'];
export type Api = { [K in OperationId]: (input?: Input<K>, opts?: CallOptions) => Promise<Answer<K>> };

const isBrowser = () => typeof (globalThis as { document?: unknown }).document !== 'undefined';
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((ok, fail) => {
    const t = setTimeout(ok, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), fail(signal.reason)), { once: true });
  });
const randomKey = () => {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
};

export class ShroudClient {
  readonly baseUrl: string;
  readonly jar = new Map<string, string>();
  /** Every route as a method: `client.api.authLogin({body: {username, password}})`. */
  readonly api: Api;
  private readonly fetch: typeof fetch;
  private readonly keepCookies: boolean;

  constructor(private readonly opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.fetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.keepCookies = opts.cookieJar ?? !isBrowser();
    for (const [k, v] of Object.entries(opts.cookies ?? {})) this.jar.set(k, v);
    this.api = Object.fromEntries(
      (Object.keys(operations) as OperationId[]).map((id) => [id, (input?: Input<OperationId>, o?: CallOptions) => this.call(id, input as never, o)]),
    ) as Api;
  }

  /** The request URL of an operation with its path parameters and query. */
  urlOf<K extends OperationId>(id: K, input: Input<K> = {} as Input<K>): URL {
    const op = operations[id];
    const params = (input.params ?? {}) as Record<string, string>;
    const path = op.path.replace(/:(\w+)/g, (_, n: string) => {
      if (params[n] === undefined) throw new ShroudError('INVALID_INPUT', 0, `${id}: path parameter ${n} is required`);
      return encodeURIComponent(params[n]);
    });
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries((input.query ?? {}) as Record<string, unknown>)) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  /** One operation: retried on 429/503 as the options say, errors as ShroudError, the answer without its envelope. */
  async call<K extends OperationId>(id: K, input: Input<K> = {} as Input<K>, o: CallOptions = {}): Promise<Answer<K>> {
    const res = await this.open(id, input, o);
    o.onResponse?.(res);
    return this.answer(id, res, o);
  }

  /**
   * One operation's successful response with its body unread (a stream of server-sent events:
   * `headers: {accept: 'text/event-stream'}`); retried and turned into ShroudError as `call` is.
   */
  async open<K extends OperationId>(id: K, input: Input<K> = {} as Input<K>, o: CallOptions = {}): Promise<Response> {
    const op = operations[id];
    const headers: Record<string, string> = { accept: 'application/json', ...(o.headers ?? {}) };
    if (op.idempotent) headers['idempotency-key'] = o.idempotencyKey ?? randomKey();
    let body: BodyInit | undefined;
    let bytes: Uint8Array | undefined;
    if (input.body instanceof FormData) {
      // Encoded once, so that a retry and the progress count send the very same bytes.
      const encoded = new Response(input.body);
      headers['content-type'] = encoded.headers.get('content-type')!;
      bytes = new Uint8Array(await encoded.arrayBuffer());
    } else if (input.body !== undefined) {
      headers['content-type'] = 'application/json';
      bytes = new TextEncoder().encode(JSON.stringify(input.body));
    }
    const url = this.urlOf(id, input);
    const retries = this.opts.retries ?? 3;
    for (let attempt = 0; ; attempt++) {
      body = bytes && o.onUploadProgress ? this.counted(bytes, o.onUploadProgress) : (bytes as BodyInit | undefined);
      const res = await this.send(url, op.method, headers, body, o.signal);
      if (res.status < 400) return res;
      const err = await this.errorOf(res);
      // 429 runs before the handler; 503 may come after work began, so only where a retry cannot repeat it.
      const safe = err.status === 429 || err.code === 'IDEMPOTENCY_IN_PROGRESS' || (err.status === 503 && (op.method === 'GET' || op.idempotent));
      const wait = Math.max((err.retryAfter ?? 0) * 1000, (this.opts.backoffMs ?? 500) * 2 ** attempt * (0.75 + Math.random() / 2));
      if (!safe || attempt >= retries || wait > (this.opts.maxWaitMs ?? 30_000)) throw err;
      await sleep(wait, o.signal);
    }
  }

  /** A request body that reports how much of it was read (Node streams it; a browser buffers it first). */
  private counted(bytes: Uint8Array, listener: ProgressListener): BodyInit {
    if (isBrowser()) {
      listener({ loaded: bytes.length, total: bytes.length });
      return bytes as BodyInit;
    }
    const CHUNK = 64 * 1024;
    let offset = 0;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        const chunk = bytes.subarray(offset, offset + CHUNK);
        offset += chunk.length;
        controller.enqueue(chunk);
        listener({ loaded: offset, total: bytes.length });
      },
    }) as BodyInit;
  }

  private async send(url: URL, method: string, headers: Record<string, string>, body: BodyInit | undefined, signal?: AbortSignal): Promise<Response> {
    const h = { ...headers };
    if (this.keepCookies && this.jar.size) h.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const init: RequestInit & { duplex?: 'half' } = { method, headers: h, body, redirect: 'manual', signal, credentials: 'include' };
    if (body instanceof ReadableStream) init.duplex = 'half';
    let res: Response;
    try {
      res = await this.fetch(url, init);
    } catch (e) {
      if (signal?.aborted) throw e;
      throw new ShroudError('NETWORK_ERROR', 0, `cannot reach ${this.baseUrl}: ${(e as Error).message}`);
    }
    if (this.keepCookies) this.keepCookiesOf(res);
    return res;
  }

  private keepCookiesOf(res: Response) {
    const set = typeof res.headers.getSetCookie === 'function' ? res.headers.getSetCookie() : [];
    if (!set.length) return;
    for (const c of set) {
      const [pair, ...attrs] = c.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      if (value === '' || attrs.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    this.opts.onCookies?.(Object.fromEntries(this.jar));
  }

  private async errorOf(res: Response): Promise<ShroudError> {
    const retry = Number(res.headers.get('retry-after'));
    const body = (await res.json().catch(() => ({}))) as { error?: unknown; message?: unknown };
    return new ShroudError(
      typeof body.error === 'string' ? body.error : `HTTP_${res.status}`,
      res.status,
      typeof body.message === 'string' ? body.message : `HTTP ${res.status}`,
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
    );
  }

  private async answer<K extends OperationId>(id: K, res: Response, o: CallOptions): Promise<Answer<K>> {
    const op = operations[id];
    if (res.status >= 300 && res.status < 400) return { redirect: res.headers.get('location') ?? '' } as Answer<K>;
    const type = res.headers.get('content-type') ?? '';
    // NDJSON (the proof history's export) is lines of text, not one JSON body, though its type says json.
    if (type.includes('ndjson')) return (await res.text()) as Answer<K>;
    if (!type.includes('json')) return (await this.readBytes(res, o.onDownloadProgress)) as Answer<K>;
    const body = (await res.json()) as Record<string, unknown>;
    if (op.envelope === 'data' && !op.bare) return body.data as Answer<K>;
    if (op.envelope === 'flat' && 'success' in body) {
      const { success: _, ...rest } = body;
      return rest as Answer<K>;
    }
    return body as Answer<K>;
  }

  /** A body's bytes, reporting progress as they arrive. */
  async readBytes(res: Response, listener?: ProgressListener): Promise<Uint8Array> {
    const total = Number(res.headers.get('content-length')) || undefined;
    if (!res.body || !listener) return new Uint8Array(await res.arrayBuffer());
    const chunks: Uint8Array[] = [];
    let loaded = 0;
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      loaded += value.length;
      listener({ loaded, total });
    }
    const out = new Uint8Array(loaded);
    let at = 0;
    for (const c of chunks) out.set(c, at), (at += c.length);
    return out;
  }

  /**
   * Plain PUT of bytes to a URL the API handed out (a presigned upload) with the headers signed with
   * it; no cookie goes there. A refusal is UPLOAD_FAILED (a 5xx of the storage's counts as 502).
   */
  async putBytes(url: string, body: Uint8Array, headers: Record<string, string>): Promise<void> {
    const res = await this.fetch(url, { method: 'PUT', body: body as BodyInit, headers });
    if (!res.ok) throw new ShroudError('UPLOAD_FAILED', res.status >= 500 ? 502 : res.status, `the storage refused the upload's bytes (HTTP ${res.status})`);
  }

  /** Plain GET of a URL the API handed out (a presigned download), with progress; no cookie goes there. */
  async fetchBytes(url: string, listener?: ProgressListener): Promise<Uint8Array> {
    const res = await this.fetch(url);
    if (!res.ok) throw new ShroudError('DOWNLOAD_FAILED', res.status, `download answered ${res.status}`);
    return this.readBytes(res, listener);
  }
}
