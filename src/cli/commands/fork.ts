// `fork <workflowId> --from-step N [run flags]`: a new run whose steps 1 … N−1 are the source's, as recorded, and
// whose step N is the first live model call, with a worker in this process (like `run`). The run flags given replace
// the source's settings; the others stay the source's.
import { toolCatalog } from '../../config/tool-names.js';
import { expectPositionals, UsageError, type FlagSpec, type Parsed } from '../../core/args.js';
import { defineCommand } from '../command.js';
import { loadCliConfig } from '../config.js';
import { agentClient } from '../lazy-client.js';
import { logLine } from '../log.js';
import { RUN_FLAGS, runFromValues, valuesFromFlags } from '../settings.js';
import { forkValues, settingsGivenBy } from '../../core/fork-settings.js';
import { taskQueue } from '../task-queue.js';
import { withWorker } from './run.js';

// The run flags that make no sense for a fork: its task is the source's transcript, its id is new.
const { id: _id, 'task-file': _taskFile, priority: _p, 'fairness-key': _fk, 'fairness-weight': _fw, ...SETTING_FLAGS } = RUN_FLAGS;

const FORK_FLAGS = {
  'from-step': { type: 'int', min: 1, value: 'N', help: 'the first live step: steps 1 to N-1 are reused as recorded (required)' },
  message: { type: 'string', value: 'TEXT', help: 'a user message added after the reused steps (steer the branch)' },
  ...SETTING_FLAGS,
  'max-steps': { ...SETTING_FLAGS['max-steps'], help: "live model calls allowed (default: the source's)" },
  'budget-tokens': { ...SETTING_FLAGS['budget-tokens'], help: "stop when the fork's own tokens reach N (the reused steps' do not count)" },
  'budget-usd': { ...SETTING_FLAGS['budget-usd'], help: "stop when the fork's own cost reaches X dollars (the reused steps' does not count)" },
} satisfies Record<string, FlagSpec>;

const USAGE = 'fork <workflowId> --from-step N [--message TEXT] [run flags]';

export const fork = defineCommand({
  usage: USAGE,
  description: `Start a new run whose steps 1 to N-1 are the source run's, as recorded (model replies and tool
results, whole: no tool runs again, no model call is made for them), and whose step N is the first live model call,
with a worker in this process (like \`run\`). The run flags given replace the source's settings; the others stay
the source's. The source may be running, closed, continued as new or a fork; it is left untouched.`,
  flags: FORK_FLAGS,
  examples: [
    'fork nightly-report --from-step 7 --message "Use the 2026 figures, not the 2025 ones"',
    'fork nightly-report --from-step 3 --system "Check every figure twice" --max-steps 10 --json',
  ],
  run: forkCommand,
});

async function forkCommand({ flags, positionals }: Parsed<typeof FORK_FLAGS>): Promise<number> {
  const [sourceId] = expectPositionals(positionals, ['workflowId'], USAGE);
  const fromStep = flags['from-step'];
  if (fromStep === undefined) throw new UsageError(`--from-step N is required: the first step the fork makes live (${USAGE})`);
  if (flags.message !== undefined && !flags.message.trim()) throw new UsageError('--message is empty: give the text to add, or leave it out');
  const { config } = await loadCliConfig(flags.config);
  const values = valuesFromFlags(flags);
  return withWorker(flags, config, async (temporal) => {
    const { forkRun, forkSourceSettings } = await agentClient();
    // A ForkError (a step out of range, a source gone) is exit 2 with its message (src/cli/errors.ts).
    const source = await forkSourceSettings(temporal.client, sourceId);
    // The flags given are checked over the source's settings (the ones the fork keeps), not over the defaults.
    const full = runFromValues(forkValues(source, values), toolCatalog(config), flags).settings;
    const overrides = settingsGivenBy(values, full, source);
    const started = await forkRun(temporal.client, sourceId, { fromStep, settings: overrides, message: flags.message, taskQueue: taskQueue() });
    const reused = fromStep === 1 ? 'no step reused' : fromStep === 2 ? 'step 1 reused' : `steps 1 to ${fromStep - 1} reused`;
    logLine(`forked ${sourceId} at step ${fromStep} as run ${started.workflowId} (${reused})`);
    return started.workflowId;
  });
}
