/**
 * `shroud bug`: file a bug report (/api/bug-reports; signed in or not), and `shroud bug list`:
 * the reports this session filed.
 */
import { need, str, usage, type BaseContext } from './shared.ts';

const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;

export const bugCommands = [
  {
    name: 'bug',
    summary: 'file a bug report: a title, what happened (and optionally the steps and the severity)',
    args: [
      { name: 'title', description: 'one line' },
      { name: 'description', description: 'what happened, quoted', variadic: true },
    ],
    options: [
      { flags: '-s, --severity <severity>', description: SEVERITIES.join(' | '), default: 'medium' },
      { flags: '--steps <steps>', description: 'how to make it happen again' },
    ],
    async run(ctx: BaseContext) {
      const [title, ...rest] = ctx.args;
      const severity = str(ctx.opts.severity) ?? 'medium';
      if (!(SEVERITIES as readonly string[]).includes(severity)) throw usage(`--severity: one of ${SEVERITIES.join(', ')}`);
      const steps = str(ctx.opts.steps);
      const out = await ctx.client.api.bugReportsCreate({
        body: {
          title: need(title, 'title'),
          description: need(rest.join(' ').trim() || undefined, 'description'),
          severity: severity as (typeof SEVERITIES)[number],
          ...(steps ? { steps } : {}),
          context: { via: 'shroud' },
        },
      });
      return {
        data: out,
        fields: [
          ['filed', out.id],
          ['at', out.createdAt],
        ] as [string, unknown][],
      };
    },
  },
  {
    name: 'bug list',
    summary: 'the bug reports you filed',
    async run(ctx: BaseContext) {
      const { reports } = await ctx.client.api.bugReportsList();
      return {
        data: reports,
        table: { columns: ['id', 'severity', 'title', 'filed'], rows: reports.map((r) => [r.id, r.severity, r.title, r.createdAt.slice(0, 19)]) },
        empty: 'no bug reports filed: `shroud bug "<title>" "<what happened>"`',
      };
    },
  },
];
