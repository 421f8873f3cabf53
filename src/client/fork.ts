// forkRun: a new run whose steps 1 … N−1 are a recorded run's, as recorded, and whose step N is its first live
// model call. The source is read from the server alone (its history replayed here: no worker, nothing written to
// it); the fork is a new workflow whose input carries the reused transcript (as continue-as-new carries one) and
// where it came from. What the fork starts from is decided by the pure src/core/fork.ts.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { forkedRunState, ForkStepError, forkMaxSteps, liveStepsOf, toolCallsIn, toolUseIdsBeforeStep, transcriptBeforeStep, withSteeringMessage } from '../core/fork.js';
import { addUsage, textOf, ZERO_USAGE } from '../core/transcript.js';
import { roundUsd } from '../core/pricing.js';
import { MAX_CARRIED_BYTES, utf8Bytes } from '../core/run-state.js';
import { AgentForkedFrom, startingSearchAttributes } from '../core/search-attributes.js';
import { checkAgentSettings } from '../core/settings-check.js';
import type { AgentInput, AgentSettings, ForkOrigin, MessageParam, Usage } from '../core/types.js';
import { validateJsonSchema } from '../tools/validate.js';
import type { agentWorkflow } from '../workflows/agent.js';
import { AGENT_WORKFLOW } from '../workflows/definitions.js';
import { readRunFromHistory, type RunFromHistory } from './history.js';
import { randomSuffix, runStart, searchAttributesRegistered, type StartedAgent } from './start.js';
import { turnsOfRun, type TurnUsage } from './turns.js';

export interface ForkOptions {
  /** The fork's first live step: steps before it are the source's, as recorded. */
  fromStep: number;
  /** Settings that replace the source's from the fork's first live step on (the rest are the source's). `maxSteps`
   * counts live steps; budgets count the fork's own spend (the reused steps' is in `forkedFrom`). */
  settings?: Partial<AgentSettings>;
  /** A user message added after the reused steps (steer the branch). */
  message?: string;
  /** The fork's workflow id (default: `<source>-fork-<random>`). */
  workflowId?: string;
  taskQueue?: string;
}

export interface ForkedRun extends StartedAgent {
  forkedFrom: ForkOrigin;
}

/** The fork cannot be made (the source's history is gone, the step is out of range, the prefix is too large):
 * bad input, with what to do instead. */
export class ForkError extends Error {
  override name = 'ForkError';
}

/** Forks `sourceId` at step `fromStep` (the source may be running, closed, continued as new, a fork itself). No tool
 * of the reused steps runs again; the source is untouched. */
export async function forkRun(client: Client, sourceId: string, options: ForkOptions): Promise<ForkedRun> {
  const source = await readSource(client, sourceId);
  let messages: MessageParam[];
  try {
    messages = transcriptBeforeStep(source.messages, options.fromStep, `run ${sourceId}`);
  } catch (err) {
    if (err instanceof ForkStepError) throw new ForkError(err.message);
    throw err;
  }
  const fromStep = options.fromStep;
  const input = source.input;
  const settings = forkSettings(input, fromStep, options.settings ?? {});
  checkAgentSettings(settings, { compileSchema: validateJsonSchema });
  settings.searchAttributes = settings.searchAttributes && (await searchAttributesRegistered(client));
  const reused = await reusedUsage(client, sourceId, fromStep, source);
  const forkedFrom: ForkOrigin = {
    workflowId: sourceId,
    runId: source.runId,
    step: fromStep,
    reusedToolCalls: toolCallsIn(messages),
    reusedUsage: reused.usage,
    reusedCostUsd: roundUsd(reused.costUsd),
  };
  const carried = forkedRunState(source.state, withSteeringMessage(messages, options.message), fromStep, settings.deadlineMs, Date.now());
  const task = input.task || textOf(source.messages[0]?.content ?? []);
  const forkInput: AgentInput = { task: '', settings, carried, forkedFrom };
  const bytes = utf8Bytes(JSON.stringify(forkInput));
  if (bytes > MAX_CARRIED_BYTES) {
    throw new ForkError(
      `the transcript of steps 1 to ${fromStep - 1} of ${sourceId} is ${bytes} bytes, over the ${MAX_CARRIED_BYTES} bytes a run's input may ` +
        `carry: fork at an earlier step`,
    );
  }
  const workflowId = options.workflowId ?? forkId(sourceId);
  // AgentForkedFrom is registered by the embedded server and the full stack; other servers need the `temporal
  // operator search-attribute create` command in docs/fork-and-replay.md.
  const forkAttribute = settings.searchAttributes && (await searchAttributesRegistered(client, [AgentForkedFrom]));
  const handle = await client.workflow.start<typeof agentWorkflow>(AGENT_WORKFLOW, {
    workflowId,
    ...runStart(client, forkInput, options.taskQueue, `fork of ${sourceId} at step ${fromStep}: ${task}`),
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    ...(settings.searchAttributes
      ? {
          typedSearchAttributes: [
            ...startingSearchAttributes(settings.model),
            ...(forkAttribute ? [{ key: AgentForkedFrom, value: sourceId }] : []),
          ],
        }
      : {}),
  });
  return { workflowId, runId: handle.firstExecutionRunId, attached: false, forkedFrom };
}

/** The settings a fork of `sourceId` starts from (its latest run's), to check the settings a caller gives against
 * them before forking. ForkError when there is no such run. */
export async function forkSourceSettings(client: Client, sourceId: string): Promise<AgentSettings> {
  try {
    const runId = (await client.workflow.getHandle(sourceId).describe()).runId;
    const { input } = await turnsOfRun(client, sourceId, runId);
    if (!input) throw new ForkError(`run ${sourceId} has no readable input in its history`);
    return input.settings;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new ForkError(noSuchRun(sourceId));
    throw err;
  }
}

type Source = Pick<RunFromHistory, 'runId' | 'messages' | 'state'> & { input: AgentInput };

async function readSource(client: Client, sourceId: string): Promise<Source> {
  try {
    const runId = (await client.workflow.getHandle(sourceId).describe()).runId;
    // The latest run of the chain carries the whole transcript (continue-as-new carries it) and its settings.
    const [run, { input }] = await Promise.all([readRunFromHistory(client, sourceId, runId), turnsOfRun(client, sourceId, runId)]);
    if (!input) throw new ForkError(`run ${sourceId} has no readable input in its history`);
    return { runId, input, messages: run.messages, state: run.state };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      throw new ForkError(noSuchRun(sourceId));
    }
    throw err;
  }
}

/** The source's settings with the given ones in their place; the step cap counts the fork's live steps. */
function forkSettings(input: AgentInput, fromStep: number, given: Partial<AgentSettings>): AgentSettings {
  const liveSteps = given.maxSteps ?? liveStepsOf(input.settings, input.forkedFrom);
  // A fork of a sub-agent's run is a top-level run (no `subAgent` in its input) with the child's settings.
  return { ...input.settings, ...given, maxSteps: forkMaxSteps(fromStep, liveSteps) };
}

/** The usage and cost of steps 1 … fromStep−1 of a job: each model call's, read from the histories of its runs
 * (continue-as-new), each sub-agent's it delegated to in those steps (rolled up into the job's, as the run counts
 * them), and for steps a fork reused, from the run it forked (recursively). `read`: the job's latest run, when the
 * caller has it. */
async function reusedUsage(
  client: Client,
  workflowId: string,
  fromStep: number,
  read?: Pick<RunFromHistory, 'messages' | 'state'>,
): Promise<{ usage: Usage; costUsd: number | null }> {
  const turns: TurnUsage[] = [];
  let runId: string | undefined;
  let firstInput: AgentInput | undefined;
  for (;;) {
    const run = await turnsOfRun(client, workflowId, runId);
    turns.unshift(...run.turns);
    firstInput = run.input;
    // The run before: the one it continued as new from, or the one it resumed.
    runId = run.previousRunId ?? run.input?.resumedFrom?.runId;
    if (!runId) break;
  }
  let usage: Usage = { ...ZERO_USAGE };
  let cost: number | null = null;
  const add = (u: Usage, c: number | null) => {
    usage = addUsage(usage, u);
    if (c !== null) cost = (cost ?? 0) + c;
  };
  for (const t of turns) if (t.step < fromStep) add(t.usage, t.costUsd);
  // The sub-agents of the reused steps: a child's usage is in its own history, recorded in the job's state.
  const { messages, state } = read ?? (await readRunFromHistory(client, workflowId));
  const delegated = new Set(toolUseIdsBeforeStep(messages, fromStep));
  for (const child of Object.values(state.children ?? {})) if (delegated.has(child.toolUseId)) add(child.usage, child.costUsd);
  // Steps this job reused from its own source: counted there, up to where this fork starts.
  const origin = firstInput?.forkedFrom;
  if (origin) {
    const upTo = Math.min(origin.step, fromStep);
    if (upTo === origin.step) add(origin.reusedUsage, origin.reusedCostUsd);
    else {
      const earlier = await reusedUsage(client, origin.workflowId, upTo);
      add(earlier.usage, earlier.costUsd);
    }
  }
  return { usage, costUsd: cost };
}

const noSuchRun = (sourceId: string) =>
  `no run ${sourceId} in this namespace: the id is wrong, or its history is gone (past the namespace's retention)`;

/** `<source>-fork-k2x1q9`: readable in the UI, unique enough never to collide. */
function forkId(sourceId: string): string {
  return `${sourceId.slice(0, 180)}-fork-${randomSuffix()}`;
}
