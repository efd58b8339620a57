import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { listBugReports, putBugReport, type BugReport } from '#lib/data/bug-reports.ts';
import { contextProblem } from './context.ts';

/** Checked on the raw value, before z.record copies it (a copy would already have lost a `__proto__` key). */
const contextSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    const problem = value === undefined ? undefined : contextProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, fatal: true });
  })
  .pipe(z.record(z.string(), z.unknown()).optional());

export const bugReportInput = z.object({
  title: z.string().trim().min(1).max(200),
  description: z.string().trim().min(1).max(10_000),
  severity: z.enum(['low', 'medium', 'high', 'critical']).default('medium'),
  steps: z.string().max(10_000).optional(),
  context: contextSchema.optional(),
});
export type BugReportInput = z.infer<typeof bugReportInput>;
export type { BugReport };

/** Reports belong to their reporter: a user id when signed in, else an anonymous client id. */
export async function create(owner: string, input: BugReportInput): Promise<BugReport> {
  const report: BugReport = { ...input, id: randomUUID(), createdAt: clock.now().toISOString() };
  await putBugReport(owner, report);
  return report;
}

export const listMine = (owner: string): Promise<BugReport[]> => listBugReports(owner);

// The answers (before the flat envelope), for the OpenAPI document.
export const bugReportCreated = z.object({ id: z.uuid(), createdAt: z.iso.datetime() });
export const bugReportResponse = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  severity: z.enum(['low', 'medium', 'high', 'critical']),
  steps: z.string().optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  createdAt: z.string(),
});
export const bugReportList = z.object({ reports: z.array(bugReportResponse) });
