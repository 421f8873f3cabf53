// OpenTelemetry's workflow-side modules (Temporal's workflow interceptors and the API they and the run's span use),
// loaded by a run only once it is known to be traced (src/workflows/otel-interceptors.ts).
// Why: in a reused V8 context every run the sandbox starts evaluates the workflow code's modules anew, in a module
// cache of its own, and these are about 690 KiB of the bundle's 1,440 KiB of code; an untraced run, as most
// are, evaluated and held all of them for nothing. Plain CommonJS, because webpack evaluates a module an ES module
// imports together with its importer, and one `require`d inside a function only when the function first runs.
'use strict';

/** @returns {{ interceptors: typeof import('@temporalio/interceptors-opentelemetry/lib/workflow/index.js'), api: typeof import('@opentelemetry/api') }} */
exports.loadOtelWorkflow = function loadOtelWorkflow() {
  return {
    interceptors: require('@temporalio/interceptors-opentelemetry/lib/workflow/index.js'),
    api: require('@opentelemetry/api'),
  };
};
