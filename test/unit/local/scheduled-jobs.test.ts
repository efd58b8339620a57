import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jobs, scheduledJobs } from '#functions/jobs.ts';
import { isScheduled, type Job } from '#lib/job.ts';
import { localPeriodMs, startScheduledJobs } from '#lib/local/runtime.ts';

/** The job table (functions/jobs.ts) and the local runtime's scheduler that reads it. */
const repoRoot = join(import.meta.dirname, '..', '..', '..');
const runs = () => (globalThis as { __jobRuns?: Record<string, number> }).__jobRuns?.count ?? 0;

afterEach(() => {
  vi.useRealTimers();
});

describe('the job table', () => {
  it('has one row per file under functions/scheduled/, each naming a file that exists, with unique names and construct ids', () => {
    const files = readdirSync(join(repoRoot, 'functions', 'scheduled'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `functions/scheduled/${f}`);
    expect(jobs.map((j) => j.handler).sort()).toEqual(files.sort());
    for (const j of jobs) expect(existsSync(join(repoRoot, j.handler)), j.handler).toBe(true);
    expect(new Set(jobs.map((j) => j.name)).size).toBe(jobs.length);
    expect(new Set(jobs.map((j) => j.id)).size).toBe(jobs.length);
  });

  it('keeps every scheduled timeout below its period, so that passes never overlap', () => {
    for (const j of scheduledJobs()) expect(j.timeoutSeconds, j.name).toBeLessThan(j.trigger.everyMinutes * 60);
  });

  it('runs each scheduled row locally on its AWS period unless the row says why not', () => {
    for (const j of scheduledJobs()) {
      if (j.local) expect(j.local.why.length, j.name).toBeGreaterThan(10);
      else expect(localPeriodMs(j), j.name).toBe(j.trigger.everyMinutes * 60_000);
    }
    // The two the local runtime used to leave out or run on another period (the full sweep daily, epochs never).
    expect(localPeriodMs(scheduledJobs().find((j) => j.name === 'sweep-full')!)).toBe(60 * 60_000);
    expect(scheduledJobs().some((j) => j.name === 'close-reward-epochs')).toBe(true);
  });
});

describe('the local runtime scheduler', () => {
  it("invokes each scheduled row's handler on its period, and nothing for a queue-fed row", async () => {
    vi.useFakeTimers();
    const row = (name: string, trigger: Job['trigger'], local?: Job['local']): Job => ({
      name,
      id: name,
      handler: 'test/fixtures/jobs/count.ts',
      description: name,
      trigger,
      timeoutSeconds: 1,
      grants: [],
      local,
    });
    const table = [row('every-two-minutes', { everyMinutes: 2 }), row('queue-fed', { queues: 'replica' })];
    expect(table.filter(isScheduled)).toHaveLength(1);
    const before = runs();
    const { stop } = startScheduledJobs(table);
    await vi.advanceTimersByTimeAsync(119_000);
    expect(runs() - before).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.waitFor(() => expect(runs() - before).toBe(1));
    await vi.advanceTimersByTimeAsync(240_000);
    await vi.waitFor(() => expect(runs() - before).toBe(3));
    await stop();
    await vi.advanceTimersByTimeAsync(600_000);
    expect(runs() - before).toBe(3);
  });

  it("uses a row's local period where it gives one", async () => {
    vi.useFakeTimers();
    const before = runs();
    const { stop } = startScheduledJobs([
      {
        name: 'fast',
        id: 'fast',
        handler: 'test/fixtures/jobs/count.ts',
        description: 'fast',
        trigger: { everyMinutes: 60 },
        timeoutSeconds: 1,
        grants: [],
        local: { everyMs: 1000, why: 'a test row' },
      },
    ]);
    for (let i = 0; i < 5; i++) {
      await vi.advanceTimersByTimeAsync(1000);
      await vi.waitFor(() => expect(runs() - before).toBe(i + 1));
    }
    await stop();
  });

  it("waits for passes that begin after the call (a period given in place of the row's), and fails a wait when the jobs stop", async () => {
    vi.useFakeTimers();
    const row: Job = {
      name: 'counted',
      id: 'counted',
      handler: 'test/fixtures/jobs/count.ts',
      description: 'counted',
      trigger: { everyMinutes: 60 },
      timeoutSeconds: 1,
      grants: [],
    };
    const scheduled = startScheduledJobs([row], { counted: 500 });
    const before = runs();
    let waited = false;
    const two = scheduled.passes('counted', 2).then(() => (waited = true));
    await vi.advanceTimersByTimeAsync(500);
    await vi.waitFor(() => expect(runs() - before).toBe(1));
    expect(waited).toBe(false);
    await vi.advanceTimersByTimeAsync(500);
    await two;
    expect(runs() - before).toBe(2);
    await expect(scheduled.passes('no-such-job')).rejects.toThrow(/does not run/);
    const never = scheduled.passes('counted', 5);
    await scheduled.stop();
    await expect(never).rejects.toThrow(/stopped before its passes/);
  });
});
