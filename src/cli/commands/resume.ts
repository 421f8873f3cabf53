// `resume`: go on with a stopped, failed or cancelled run, with a worker in this process (like `run`).
import { expectPositionals, UsageError, type FlagSpec, type Parsed } from '../../core/args.js';
import { defineCommand } from '../command.js';
import { CONFIG_FLAG, loadCliConfig } from '../config.js';
import { logLine } from '../log.js';
import { agentClient } from '../lazy-client.js';
import { durationFlag } from '../settings.js';
import { taskQueue } from '../task-queue.js';
import { withWorker } from './run.js';

const RESUME_FLAGS = {
  json: { type: 'boolean', help: 'print exactly one JSON document' },
  scripted: { type: 'boolean', help: 'use the offline scripted model instead of Claude' },
  'max-steps': { type: 'int', min: 1, max: 10_000, help: 'model calls allowed in addition to those already used' },
  'budget-tokens': { type: 'int', min: 1, help: 'tokens allowed in addition to those already used' },
  'budget-usd': { type: 'number', min: 0, help: 'dollars allowed in addition to those already spent (sub-agents included)' },
  deadline: { type: 'string', value: 'D', help: 'wall-clock limit from now (without it, the resumed run has none)' },
  ...CONFIG_FLAG,
} satisfies Record<string, FlagSpec>;

const USAGE = 'resume <workflowId> [--max-steps N] [--budget-tokens N] [--budget-usd X] [--deadline D] [--scripted] [--config FILE] [--json]';

export const resume = defineCommand({
  usage: USAGE,
  description: `Go on with a stopped, failed or cancelled run, in a new run of the same workflow id, from its
transcript and guard state, with a worker in this process (like \`run\`). A completed run cannot be resumed.`,
  flags: RESUME_FLAGS,
  examples: ['resume nightly-report --max-steps 10', 'resume nightly-report --budget-tokens 200000 --deadline 20m'],
  run: resumeCommand,
});

async function resumeCommand({ flags, positionals }: Parsed<typeof RESUME_FLAGS>): Promise<number> {
  const [workflowId] = expectPositionals(positionals, ['workflowId'], USAGE);
  const deadlineMs = flags.deadline !== undefined ? durationFlag('deadline', flags.deadline) : undefined;
  const { config } = await loadCliConfig(flags.config);
  return withWorker(
    flags,
    config,
    async (temporal) => {
      const { client } = temporal;
      const { getAgentResult, resumeAgent } = await agentClient();
      const description = await client.workflow.getHandle(workflowId).describe();
      if (description.status.name === 'RUNNING') {
        throw new UsageError(`run ${workflowId} is still running: only a stopped, failed or cancelled run can be resumed`);
      }
      const before = await getAgentResult(client, workflowId);
      if (before.status === 'completed') {
        throw new UsageError(`run ${workflowId} completed: there is nothing to resume`);
      }
      const why = before.guard ? ` by guard ${before.guard}` : before.error ? `: ${before.error}` : '';
      if (before.guard === 'max_steps' && flags['max-steps'] === undefined) {
        logLine('warning: the run was stopped by its step cap and --max-steps is not given: it will stop again at once');
      }
      if (before.guard === 'budget' && flags['budget-tokens'] === undefined && flags['budget-usd'] === undefined) {
        logLine('warning: the run was stopped by its budget and neither --budget-tokens nor --budget-usd is given: it may stop again at once');
      }
      const started = await resumeAgent(client, workflowId, {
        moreSteps: flags['max-steps'],
        moreBudgetTokens: flags['budget-tokens'],
        moreBudgetUsd: flags['budget-usd'],
        deadlineMs,
        taskQueue: taskQueue(),
      });
      logLine(`resumed run ${workflowId} (it was ${before.status}${why}) as run ${started.runId}`);
      return workflowId;
    },
    workflowId,
  );
}

