import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * The load generator of the hot-path bench, run as its own process so that the client does not
 * share the server's event loop: `concurrency` clients on keep-alive connections, each sending
 * its next request when the previous answer is read, for `seconds` after a warm-up. Prints one
 * JSON line: requests, seconds, latencies' p50/p90/p99, status counts.
 */
export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  body?: string;
  concurrency: number;
  seconds: number;
  warmupSeconds: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  statuses: Record<string, number>;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function run(spec: LoadSpec): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.concurrency });
  const url = new URL(spec.url);
  const body = spec.body === undefined ? undefined : Buffer.from(spec.body);
  const headers: Record<string, string> = body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {};
  const once = () =>
    new Promise<number>((ok, fail) => {
      const req = request({ agent, host: url.hostname, port: url.port, path: url.pathname, method: spec.method, headers }, (res) => {
        res.on('data', () => {});
        res.on('end', () => ok(res.statusCode ?? 0));
        res.on('error', fail);
      });
      req.on('error', fail);
      req.end(body);
    });
  const phase = async (seconds: number, record: boolean) => {
    const lat: number[] = [];
    const statuses: Record<string, number> = {};
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    await Promise.all(
      Array.from({ length: spec.concurrency }, async () => {
        while (performance.now() < end) {
          const s = performance.now();
          const status = await once();
          if (!record) continue;
          lat.push(performance.now() - s);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      }),
    );
    return { lat, statuses, secs: (performance.now() - t0) / 1000 };
  };
  await phase(spec.warmupSeconds, false);
  const { lat, statuses, secs } = await phase(spec.seconds, true);
  agent.destroy();
  lat.sort((a, b) => a - b);
  return { requests: lat.length, seconds: secs, rps: lat.length / secs, p50: pct(lat, 50), p90: pct(lat, 90), p99: pct(lat, 99), statuses };
}

if (process.argv[2]) {
  const result = await run(JSON.parse(process.argv[2]) as LoadSpec);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
