// The one place the project reaches into the Temporal SDK's internal files, written against @temporalio/* 1.24.0
// (their packages have no exports map: every path below is a file of the published package, not a public API).
// test/workflows/sdk-internals.test.ts fails when one of these paths or names moves. Plain CommonJS, each module
// `require`d inside its function, so that webpack evaluates it only when the function first runs (a workflow bundle
// evaluates an ES module's imports together with it).
'use strict';

/** OpenTelemetry's workflow-side modules (Temporal's workflow interceptors and the API they and the run's span use),
 * loaded by a run only once it is known to be traced (src/workflows/otel-interceptors.ts). The package's root also
 * loads its worker and plugin parts, which the workflow sandbox cannot import. Why lazily: in a reused V8 context every
 * run the sandbox starts evaluates the workflow code's modules anew, in a module cache of its own, and these are about
 * 690 KiB of the bundle's 1,440 KiB of code; an untraced run, as most are, evaluated and held all of them for nothing.
 * @returns {{ interceptors: typeof import('@temporalio/interceptors-opentelemetry/lib/workflow/index.js'), api: typeof import('@opentelemetry/api') }} */
exports.loadOtelWorkflow = function loadOtelWorkflow() {
  return {
    interceptors: require('@temporalio/interceptors-opentelemetry/lib/workflow/index.js'),
    api: require('@opentelemetry/api'),
  };
};

/** Reports the current workflow task's versioning behavior as AUTO_UPGRADE (src/workflows/versioning.ts): on Temporal
 * Server 1.29, the only way for a pinned run's continue-as-new to start on the current version. The SDK has no public
 * way to change a run's behavior once it started; its activator holds the value it reports. Returns whether it could. */
exports.reportAutoUpgrade = function reportAutoUpgrade() {
  /** @type {{ versioningBehavior?: string } | undefined} */
  const activator = require('@temporalio/workflow/lib/global-attributes.js').maybeGetActivator();
  if (!activator) return false;
  activator.versioningBehavior = 'AUTO_UPGRADE';
  return true;
};
