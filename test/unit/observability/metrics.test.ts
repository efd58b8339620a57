import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * recordRequest's EMF output, read from stdout exactly as CloudWatch Logs would read it in Lambda.
 * Each case imports lib/metrics.ts afresh under its own environment (settings are read at cold
 * start). POWERTOOLS_LOG_LEVEL=WARN makes any Powertools warning an extra output line, so "one line
 * per request" also proves that nothing warned.
 */
async function load(env: Record<string, string | undefined>) {
  vi.resetModules();
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'WARN');
  vi.stubEnv('STAGE', 'ci');
  vi.stubEnv('SERVICE_NAME', 'shroud');
  vi.stubEnv('AWS_EXECUTION_ENV', undefined);
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', undefined);
  vi.stubEnv('POWERTOOLS_DEV', undefined);
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  return import('#lib/metrics.ts');
}

/** The lines written to stdout and stderr (Powertools' own Consoles: EMF, log lines, warnings) while `fn` runs. */
function outputOf(fn: () => void): string[] {
  const chunks: string[] = [];
  const capture = (chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  };
  const spies = [vi.spyOn(process.stdout, 'write').mockImplementation(capture), vi.spyOn(process.stderr, 'write').mockImplementation(capture)];
  try {
    fn();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return chunks.join('').split('\n').filter(Boolean);
}

type Emf = {
  _aws: { Timestamp: number; CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [k: string]: unknown;
};

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('recordRequest (metrics on, as in Lambda)', () => {
  it('writes one EMF line per request: namespace, route and group dimension sets, count, status class, latency', async () => {
    const { recordRequest } = await load({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' });
    const lines = outputOf(() => recordRequest({ group: 'auth', method: 'POST', route: '/api/auth/login', status: 200, durationMs: 42 }));
    expect(lines).toHaveLength(1);
    const emf = JSON.parse(lines[0]!) as Emf;
    const [directive] = emf._aws.CloudWatchMetrics;
    expect(directive!.Namespace).toBe('Shroud');
    expect(directive!.Dimensions).toEqual([
      ['service', 'stage', 'route'],
      ['service', 'stage', 'group'],
    ]);
    expect(directive!.Metrics).toEqual([
      { Name: 'Requests', Unit: 'Count' },
      { Name: 'Status2xx', Unit: 'Count' },
      { Name: 'Latency', Unit: 'Milliseconds' },
    ]);
    expect(emf).toMatchObject({ service: 'shroud', stage: 'ci', route: 'POST /api/auth/login', group: 'auth', Requests: 1, Status2xx: 1, Latency: 42 });
    expect(Math.abs(emf._aws.Timestamp - Date.now())).toBeLessThan(60_000);
  });

  it('counts a 429 as Status4xx and RateLimited, a 500 as Status5xx, a 302 as Status3xx', async () => {
    const { recordRequest } = await load({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' });
    const lines = outputOf(() => {
      recordRequest({ group: 'storage', method: 'POST', route: '/api/storage/upload', status: 429, durationMs: 3 });
      recordRequest({ group: 'storage', method: 'GET', route: '/api/storage/files/:id', status: 500, durationMs: 7.5 });
      recordRequest({ group: 'zkauth', method: 'GET', route: '/api/zkauth/login', status: 302, durationMs: 1 });
    });
    expect(lines).toHaveLength(3);
    const [limited, failed, redirected] = lines.map((l) => JSON.parse(l) as Emf);
    const names = (e: Emf) => e._aws.CloudWatchMetrics[0]!.Metrics.map((m) => m.Name);
    expect(names(limited!)).toEqual(['Requests', 'Status4xx', 'RateLimited', 'Latency']);
    expect(limited).toMatchObject({ route: 'POST /api/storage/upload', Status4xx: 1, RateLimited: 1, Latency: 3 });
    // Nothing of the first request leaks into the second: its own route, no RateLimited, no 4xx.
    expect(names(failed!)).toEqual(['Requests', 'Status5xx', 'Latency']);
    expect(failed).toMatchObject({ route: 'GET /api/storage/files/:id', group: 'storage', Status5xx: 1, Latency: 7.5 });
    expect(failed).not.toHaveProperty('RateLimited');
    expect(failed).not.toHaveProperty('Status4xx');
    expect(redirected).toMatchObject({ route: 'GET /api/zkauth/login', group: 'zkauth', Status3xx: 1 });
  });

  it('is on outside Lambda when POWERTOOLS_METRICS_DISABLED=false, with the same lines', async () => {
    const { recordRequest, metricsEnabled } = await load({ POWERTOOLS_METRICS_DISABLED: 'false' });
    expect(metricsEnabled).toBe(true);
    const lines = outputOf(() => recordRequest({ group: 'init', method: 'GET', route: '/api/init', status: 200, durationMs: 1 }));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ route: 'GET /api/init', Requests: 1 });
  });
});

describe('recordRequest where nothing reads the lines', () => {
  it('writes nothing outside Lambda by default (local runtime, tests, benchmarks)', async () => {
    const { recordRequest, metricsEnabled } = await load({});
    expect(metricsEnabled).toBe(false);
    expect(outputOf(() => recordRequest({ group: 'auth', method: 'POST', route: '/api/auth/login', status: 500, durationMs: 1 }))).toEqual([]);
  });

  it('writes nothing in Lambda when POWERTOOLS_METRICS_DISABLED=true', async () => {
    const { recordRequest } = await load({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', POWERTOOLS_METRICS_DISABLED: 'true' });
    expect(outputOf(() => recordRequest({ group: 'auth', method: 'POST', route: '/api/auth/login', status: 200, durationMs: 1 }))).toEqual([]);
  });

  it('refuses a switch it cannot read, naming the variable', async () => {
    await expect(load({ POWERTOOLS_METRICS_DISABLED: 'maybe' })).rejects.toThrow(/POWERTOOLS_METRICS_DISABLED/);
  });
});
