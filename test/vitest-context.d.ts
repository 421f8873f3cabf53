// Values provided by test/global-setup.ts, read in tests with `inject('temporalAddress')`.
// Importing 'vitest' makes the augmentation apply even in files that only import 'vitest/node' (global-setup).
import type {} from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** host:port of the dev server started once for the whole run. */
    temporalAddress: string;
    /** Path of a pre-built workflow bundle (WorkerOptions.workflowBundle = { codePath }); '' when not built. */
    workflowBundlePath: string;
  }
}
