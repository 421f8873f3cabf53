// Values provided by test/global-setup.ts, read in tests with `inject(...)`; the server address with
// `testServerAddress()` (test/helpers/test-server.ts), which picks the test process's own server.
// Importing 'vitest' makes the augmentation apply even in files that only import 'vitest/node' (global-setup).
import type {} from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** host:port of each dev server started for the run, one per test process. */
    temporalAddresses: string[];
    /** The Prometheus metrics port of each of those servers, in the same order. */
    temporalMetricsPorts: Array<number | null>;
    /** Path of a pre-built workflow bundle (WorkerOptions.workflowBundle = { codePath }); '' when not built. */
    workflowBundlePath: string;
    /** The same, with the project's failure converter: for workers that encrypt. */
    encodingWorkflowBundlePath: string;
  }
}
