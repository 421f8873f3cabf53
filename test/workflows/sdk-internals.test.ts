// src/workflows/sdk-internals.cjs is the project's one reach into the Temporal SDK's internal files (written against
// 1.24.0). These fail as soon as an SDK upgrade moves a file or renames what the project reads from it, instead of
// a traced run or a versioned continue-as-new failing at run time.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const internals = require('../../src/workflows/sdk-internals.cjs') as { loadOtelWorkflow(): { interceptors: Record<string, unknown> }; reportAutoUpgrade(): boolean };

describe('the SDK internals the workflow code uses', () => {
  it("loads OpenTelemetry's workflow interceptor classes from the path it names", () => {
    const { interceptors } = internals.loadOtelWorkflow();
    expect(typeof interceptors.OpenTelemetryInboundInterceptor).toBe('function');
    expect(typeof interceptors.OpenTelemetryOutboundInterceptor).toBe('function');
    expect(typeof interceptors.OpenTelemetryInternalsInterceptor).toBe('function');
  });

  it("finds the SDK's activator getter (outside a workflow there is no activator: nothing is reported)", () => {
    expect(typeof require('@temporalio/workflow/lib/global-attributes.js').maybeGetActivator).toBe('function');
    expect(internals.reportAutoUpgrade()).toBe(false);
  });

  it('the activator still reports the versioning behavior it holds', () => {
    // What reportAutoUpgrade sets is what the SDK sends with the workflow task's completion.
    const activatorSource = require('node:fs').readFileSync(require.resolve('@temporalio/workflow/lib/internals.js'), 'utf8') as string;
    expect(activatorSource).toMatch(/versioningBehavior/);
  });
});
