import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime({ CORS_ORIGINS: 'https://app.example' });
});
afterAll(async () => {
  await rt?.stop();
});
// Each test starts in a fresh rate-limit window: the limit is per source IP, and every client here is 127.0.0.1.
beforeEach(() => advanceClock(61_000));

const noStack = (body: unknown) => {
  const text = JSON.stringify(body);
  expect(text).not.toMatch(/\bat [\w.<>]+ \(|node_modules|\.ts:\d+/);
};

describe('GET /api/init', () => {
  it('describes the service, its groups, limits and the caller session', async () => {
    const res = await rt.client().get('/api/init');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      success: true,
      service: { name: 'shroud', version: expect.any(String) },
      stage: 'local',
      maxFileSize: 100 * 1024 * 1024,
      session: { authenticated: false },
    });
    expect(res.json.groups).toContain('/api/bug-reports');
    expect(res.json.rateLimits['bug-reports']).toEqual({ perMinute: 5 });
    expect(res.headers.get('x-request-id')).toMatch(/[0-9a-f-]{36}/);
    expect(res.headers.get('ratelimit-limit')).toBe('120');
  });
});

describe('errors of the handler stack', () => {
  it('answers an unknown route with 404 NOT_FOUND', async () => {
    const res = await rt.client().get('/api/does-not-exist');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: 'NOT_FOUND', message: expect.any(String) });
  });

  it('answers a known path with a wrong method with 405 and Allow', async () => {
    const res = await rt.client().request('DELETE', '/api/init');
    expect(res.status).toBe(405);
    expect(res.json.error).toBe('METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('GET');
  });

  it('answers malformed JSON with 400 INVALID_INPUT and no internals', async () => {
    const res = await rt.client().post('/api/bug-reports', undefined, {
      body: '{"title": "x", ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'INVALID_INPUT', message: 'body: malformed JSON' });
    noStack(res.json);
  });

  it('names the bad field', async () => {
    const c = rt.client();
    const missing = await c.post('/api/bug-reports', { description: 'no title' });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toBe('INVALID_INPUT');
    expect(missing.json.message).toMatch(/^title: /);
    const long = await c.post('/api/bug-reports', { title: 'x'.repeat(201), description: 'd' });
    expect(long.json.message).toMatch(/^title: /);
    const severity = await c.post('/api/bug-reports', { title: 't', description: 'd', severity: 'urgent' });
    expect(severity.json.message).toMatch(/^severity: /);
    const context = await c.post('/api/bug-reports', { title: 't', description: 'd', context: { blob: 'x'.repeat(9000) } });
    expect(context.json.message).toMatch(/^context: /);
  });

  it('refuses a non-JSON body on a JSON route', async () => {
    const res = await rt.client().post('/api/bug-reports', undefined, { body: 'title=x', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('INVALID_INPUT');
  });
});

describe('CORS and origins', () => {
  it('shares responses with an allowed origin only', async () => {
    const allowed = await rt.client().get('/api/init', { headers: { origin: 'https://app.example' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    const other = await rt.client().get('/api/init', { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers the preflight of an allowed origin', async () => {
    const res = await fetch(new URL('/api/bug-reports', rt.url), {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('refuses a write from a foreign origin (CSRF)', async () => {
    const res = await rt.client().post('/api/bug-reports', { title: 't', description: 'd' }, { headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(403);
    expect(res.json.error).toBe('FORBIDDEN');
  });
});

describe('bug reports', () => {
  it('stores a report and lists it for its anonymous reporter only', async () => {
    const alice = rt.client();
    const created = await alice.post('/api/bug-reports', {
      title: 'Crash on upload',
      description: 'The terminal exits',
      severity: 'high',
      steps: '1. upload\n2. crash',
      context: { os: 'linux' },
    });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ success: true, id: expect.any(String), createdAt: expect.any(String) });
    const cookie = created.headers.getSetCookie().find((c) => c.startsWith('shroud_client='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);

    const mine = await alice.get('/api/bug-reports');
    expect(mine.json.reports).toHaveLength(1);
    expect(mine.json.reports[0]).toMatchObject({ id: created.json.id, title: 'Crash on upload', severity: 'high', context: { os: 'linux' } });

    const bob = rt.client();
    expect((await bob.get('/api/bug-reports')).json.reports).toEqual([]);
  });

  it('limits a client to 5 reports a minute: the sixth is 429 with Retry-After', async () => {
    const c = rt.client();
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof c.post>> | undefined;
    for (let i = 0; i < 6; i++) {
      last = await c.post('/api/bug-reports', { title: `r${i}`, description: 'd' });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
    expect(last!.json.error).toBe('RATE_LIMITED');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.headers.get('ratelimit-limit')).toBe('5');
    expect(last!.headers.get('ratelimit-remaining')).toBe('0');
  });
});
