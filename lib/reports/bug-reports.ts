import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { clock } from '#lib/clock.ts';
import { listBugReports, putBugReport, type BugReport } from '#lib/data/bug-reports.ts';

export const MAX_CONTEXT_BYTES = 8 * 1024;

export const bugReportInput = z.object({
  title: z.string().trim().min(1).max(200),
  description: z.string().trim().min(1).max(10_000),
  severity: z.enum(['low', 'medium', 'high', 'critical']).default('medium'),
  steps: z.string().max(10_000).optional(),
  context: z
    .record(z.string(), z.unknown())
    .optional()
    .refine((c) => c === undefined || Buffer.byteLength(JSON.stringify(c)) <= MAX_CONTEXT_BYTES, {
      message: `must be at most ${MAX_CONTEXT_BYTES} bytes as JSON`,
    }),
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
