// Reading a run with no worker: its history is fetched from the server and replayed here, in this process,
// through the same workflow code a worker runs; the replayed workflow then answers the same queries a live
// worker would (`agentStatus`, `transcriptPage`, `runState`). Nothing is rebuilt by hand, so what this reads is
// what the live query returns, on every path the workflow has (approvals, follow-ups, guards, summaries).
//
// How: `Worker.runReplayHistory` replays in this thread (debug mode). A subclass wraps the workflow creator so
// that, just before the replayed workflow is disposed (its history is exhausted), query activations are sent to
// it, exactly as core does when a worker answers a query on a closed workflow.
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { coresdk, temporal } from '@temporalio/proto';
import type { Worker as WorkerType } from '@temporalio/worker';
import type { RunState } from '../core/durable-state.js';
import type { AgentStatusView, MessageParam, TranscriptPage } from '../core/types.js';
import { agentStatus, runState, transcriptPage } from '../workflows/definitions.js';
import { ignoredTranscriptSinks } from '../core/transcript-sink.js';
import { ignoredTelemetrySinks } from '../core/telemetry-sink.js';
import { AGENT_ACTIVITY_TYPES } from '../core/policies.js';

type History = temporal.api.history.v1.IHistory;

/** What the replayed workflow answered: the live state at the end of the history. */
export interface ReplayedRun {
  view: AgentStatusView;
  messages: MessageParam[];
  state: Omit<RunState, 'messages'>;
}

/** Replays `history` (one run's) and asks the replayed workflow for its state. Throws when the history does
 * not replay with this version's workflow code (a non-deterministic change without `patched()`). */
export async function replayRunHistory(
  client: Client,
  history: History,
  ids: { workflowId: string; runId: string },
): Promise<ReplayedRun> {
  const { Worker } = await import('@temporalio/worker');
  await ensureQuietRuntime();
  // A CommonJS package: Node's ESM loader exposes it as the default export only.
  const { coresdk } = (await import('@temporalio/proto')).default;
  const { workflowBundle } = await import('../worker/workflow-code.js');
  const converter = client.options.loadedDataConverter.payloadConverter;
  let answered: Promise<ReplayedRun> | undefined;
  const ask = async (workflow: ActivatableWorkflow): Promise<ReplayedRun> => {
    const query = async <T>(name: string, args: unknown[]): Promise<T> => {
      // A proto message, as core sends it (the sandbox reads the job's `variant`).
      const { WorkflowActivation, WorkflowActivationJob, QueryWorkflow } = coresdk.workflow_activation;
      const queryWorkflow = QueryWorkflow.create({ queryId: name, queryType: name, arguments: args.map((a) => converter.toPayload(a)) });
      const activation = WorkflowActivation.create({ runId: ids.runId, jobs: [WorkflowActivationJob.create({ queryWorkflow })] });
      const completion = await workflow.activate(activation);
      const answer = completion.successful?.commands?.find((c) => c.respondToQuery)?.respondToQuery;
      if (answer?.succeeded?.response) return converter.fromPayload<T>(answer.succeeded.response as Payload);
      throw new Error(`the replayed run did not answer ${name}: ${answer?.failed?.message ?? 'no answer'}`);
    };
    const view = await query<AgentStatusView>(agentStatus.name, []);
    const state = await query<Omit<RunState, 'messages'>>(runState.name, []);
    const messages: MessageParam[] = [];
    for (;;) {
      const page = await query<TranscriptPage>(transcriptPage.name, [messages.length, Number.MAX_SAFE_INTEGER]);
      messages.push(...page.messages);
      if (messages.length >= page.total || page.messages.length === 0) break;
    }
    return { view: { ...view, runId: ids.runId }, messages, state };
  };

  class InspectingReplayWorker extends (Worker as unknown as WorkerWithCreator) {
    static override async createWorkflowCreator(bundle: unknown, compiled: CompiledOptions, ...rest: unknown[]): Promise<WorkflowCreator> {
      // A history that ends where the run schedules a local activity (its tools described when it starts, a fast
      // tool's call) has the workflow schedule it past the history's end, and the SDK fails a local activity the
      // worker does not register at once, which would read as a failed run. This worker registers the agent's
      // activity names; it runs none (a replay polls no activity task): the run reads as waiting for the call.
      const activities = new Map([...compiled.activities, ...AGENT_ACTIVITY_TYPES.map((name) => [name, notRunOnReplay] as const)]);
      const creator = await super.createWorkflowCreator(bundle, { ...compiled, activities }, ...rest);
      return {
        destroy: () => creator.destroy(),
        async createWorkflow(createOptions: unknown) {
          const workflow = await creator.createWorkflow(createOptions);
          return {
            activate: (activation) => workflow.activate(activation),
            getAndResetSinkCalls: () => workflow.getAndResetSinkCalls(),
            async dispose() {
              answered = ask(workflow);
              await answered.catch(() => undefined);
              await workflow.dispose();
            },
          };
        },
      };
    }
  }

  await (InspectingReplayWorker as unknown as typeof WorkerType).runReplayHistory(
    {
      workflowBundle: await workflowBundle(undefined, client.options.dataConverter),
      dataConverter: client.options.dataConverter,
      replayName: 'durable-agent-inspect',
      sinks: { ...ignoredTranscriptSinks, ...ignoredTelemetrySinks },
    },
    history,
    ids.workflowId,
  );
  if (!answered) throw new Error(`replaying run ${ids.runId} of ${ids.workflowId} produced no workflow state`);
  return answered;
}

const notRunOnReplay = () => {
  throw new Error('a replay runs no activity');
};

// The slice of the SDK's (internal) workflow interfaces this module relies on.
interface CompiledOptions {
  activities: Map<string, unknown>;
}
interface ActivatableWorkflow {
  activate(activation: coresdk.workflow_activation.IWorkflowActivation): Promise<{
    successful?: {
      commands?: Array<{
        respondToQuery?: { succeeded?: { response?: unknown }; failed?: { message?: string } } | null;
      }> | null;
    } | null;
  }>;
  getAndResetSinkCalls(): Promise<unknown[]>;
  dispose(): Promise<void>;
}
interface WorkflowCreator {
  createWorkflow(options: unknown): Promise<ActivatableWorkflow>;
  destroy(): Promise<void>;
}
interface WorkerWithCreator {
  new (...args: never[]): object;
  createWorkflowCreator(bundle: unknown, compiled: CompiledOptions, ...rest: unknown[]): Promise<WorkflowCreator>;
}

/** A process that only reads runs (a client, no worker of its own) would get the SDK's default runtime for the
 * replay, whose INFO lines about the replay worker's state changes go to the console: it gets one that logs warnings
 * only. A runtime the process made before stays, even one the SDK shut down when its last worker and connection
 * closed (it makes it again, with the same options, when next needed): installing ours then would replace the
 * process's own logger for every worker it makes after. */
export async function ensureQuietRuntime(): Promise<void> {
  const { DefaultLogger, Runtime } = await import('@temporalio/worker');
  if (Runtime._instance === undefined && Runtime.instantiator === undefined) Runtime.install({ logger: new DefaultLogger('WARN') });
}
