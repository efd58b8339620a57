import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { routes } from '../../functions/routes.ts';
import { RetrievalBackend } from '../../lib/ai/backends/retrieval.ts';
import { docsIndex } from '../../lib/ai/docs.ts';
import { startTestRuntime } from '../support/runtime.ts';
import { signedIn } from '../support/storage.ts';
import { golden } from '../unit/ai/golden.ts';

/**
 * The assistant's `retrieval` backend: time to first event and answers per second, (1) in
 * process (the backend alone: intent, BM25 search, composition) and (2) through the local runtime
 * over HTTP as server-sent events (session, rate limit, budget, conversation writes to DynamoDB
 * Local included). Questions: the golden set, in turn. Prints numbers, asserts nothing.
 */
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const fmt = (n: number) => n.toFixed(2);

async function inProcess() {
  const backend = new RetrievalBackend(docsIndex);
  const t0 = performance.now();
  docsIndex();
  console.log(`index load (cold): ${fmt(performance.now() - t0)} ms`);
  const records: Record<string, unknown> = { list_wallets: [], list_files: [], proof_history: [] };
  const req = (message: string) => ({
    message,
    history: [],
    baseUrl: 'http://localhost:3000',
    hasRoute: (m: string, p: string) => routes.some((r) => r.method === m && r.path === p),
    callTool: async (name: string) => ({ name, summary: '', data: records[name] }),
  });
  const first: number[] = [];
  const total: number[] = [];
  const started = performance.now();
  let answers = 0;
  while (performance.now() - started < 3000) {
    for (const g of golden) {
      const t = performance.now();
      let firstAt = 0;
      for await (const _ of backend.answer(req(g.q))) if (!firstAt) firstAt = performance.now() - t;
      first.push(firstAt);
      total.push(performance.now() - t);
      answers++;
    }
  }
  const secs = (performance.now() - started) / 1000;
  console.log(
    `in process: ${answers} answers in ${fmt(secs)} s = ${Math.round(answers / secs)} answers/s; first event p50 ${fmt(pct(first, 50))} ms p99 ${fmt(pct(first, 99))} ms; whole answer p50 ${fmt(pct(total, 50))} ms p99 ${fmt(pct(total, 99))} ms`,
  );
}

async function overHttp() {
  const rt = await startTestRuntime({ RATE_LIMIT_MULTIPLIER: '1000000', AI_DAILY_TOKENS: '1000000000' });
  try {
    const clients = await Promise.all(Array.from({ length: 8 }, () => signedIn(rt)));
    const one = async (c: (typeof clients)[number], q: string) => {
      const t = performance.now();
      const res = await fetch(new URL('/api/ai/chat', rt.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', cookie: `shroud_session=${c.jar.get('shroud_session')}` },
        body: JSON.stringify({ message: q }),
      });
      const reader = res.body!.getReader();
      let firstAt = 0;
      let text = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!firstAt) firstAt = performance.now() - t;
        text += new TextDecoder().decode(value);
      }
      if (!text.includes('event: done')) throw new Error(`no done event: ${res.status} ${text.slice(0, 200)}`);
      return { first: firstAt, total: performance.now() - t };
    };
    // warm-up: every handler module imported, the index loaded
    for (const g of golden.slice(0, 3)) await one(clients[0]!, g.q);
    const first: number[] = [];
    const total: number[] = [];
    for (const g of golden) {
      const r = await one(clients[0]!, g.q);
      first.push(r.first);
      total.push(r.total);
    }
    console.log(
      `over HTTP, one client (${golden.length} questions): first event p50 ${fmt(pct(first, 50))} ms p90 ${fmt(pct(first, 90))} ms; done p50 ${fmt(pct(total, 50))} ms p90 ${fmt(pct(total, 90))} ms`,
    );
    const seconds = Number(process.env.BENCH_SECONDS ?? 8);
    const until = performance.now() + seconds * 1000;
    let answers = 0;
    const firsts: number[] = [];
    await Promise.all(
      clients.map(async (c, i) => {
        for (let k = i; performance.now() < until; k++) {
          const r = await one(c, golden[k % golden.length]!.q);
          firsts.push(r.first);
          answers++;
        }
      }),
    );
    console.log(
      `over HTTP, 8 concurrent clients for ${seconds} s: ${answers} answers = ${fmt(answers / seconds)} answers/s; first event p50 ${fmt(pct(firsts, 50))} ms p90 ${fmt(pct(firsts, 90))} ms (load average ${loadavg()[0]!.toFixed(1)})`,
    );
  } finally {
    await rt.stop();
  }
}

process.env.POWERTOOLS_LOG_LEVEL ??= 'CRITICAL';
await inProcess();
await overHttp();
process.exit(0);
