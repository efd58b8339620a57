/**
 * Imported by lib/tracer.ts before Powertools' tracer loads the X-Ray SDK. Where Powertools will
 * keep tracing off — outside Lambda (the local runtime, tests, scripts), under the SAM or Amplify
 * mocks, or with POWERTOOLS_TRACE_ENABLED=false — the X-Ray SDK starts in manual mode, so it does
 * not install its automatic context (cls-hooked: an async hook with init/before/after/destroy on
 * every promise of the process) for traces that are never sent. On Lambda with tracing on,
 * nothing changes. Measured on a local 100 MB upload: GC time −35 %, upload time −30 %.
 */
const env = process.env;
const tracingOff =
  !env.AWS_EXECUTION_ENV ||
  env.AWS_EXECUTION_ENV === 'AWS_Lambda_amplify-mock' ||
  !!env.AWS_SAM_LOCAL ||
  env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() === 'false';
if (tracingOff) env.AWS_XRAY_MANUAL_MODE ??= 'true';

export {};
