// The workflow's side of compaction (src/core/compaction.ts). Server-side: a reply that begins with a compaction
// block is appended whole like any other; the run notes where it is and what it did, for `status` and
// `transcript`, and carries that through continue-as-new (the request sent from the last block on is the
// activity's work). Client-side, where the endpoint refuses the compaction parameter: the run remembers the
// refusal for the rest of the job, and compacts by itself with one summary call when the prompt reaches the
// trigger. A refused task budget is dropped the same way.
import { ActivityFailure, ApplicationFailure, log } from '@temporalio/workflow';
import { clientCompactionDue, COMPACTION_INSTRUCTION, recordClientCompaction, recordCompaction } from '../core/compaction.js';
import { promptTokens, textOf } from '../core/transcript.js';
import type { AgentStatusView, ModelReply, RefusableFeature, RunState } from '../core/types.js';
import type { RunContext } from './run-context.js';

/** A turn's model call: after a client-side compaction where one is due; without what the endpoint refused.
 * Promise chains rather than async functions: a turn without compaction creates one promise here instead of four
 * (the SDK's stack-trace hook formats a stack for each promise a workflow creates). */
export function callModelCompacting(run: RunContext): Promise<ModelReply> {
  if (clientCompactionDue(run.state, run.settings)) return compactClientSide(run).then(() => callModelOnce(run));
  return callModelOnce(run);
}

/** The call; a feature the endpoint refused is dropped for the rest of the job, and the call made again without it. */
function callModelOnce(run: RunContext): Promise<ModelReply> {
  return run.callModel().catch((err: unknown) => {
    const refused = refusedFeature(err);
    if (!refused || run.state.refused?.includes(refused)) throw err;
    (run.state.refused ??= []).push(refused);
    log.warn(`The endpoint refused ${refused}; the run goes on without it${refused === 'compaction' ? ' and compacts client-side' : ''}`);
    return callModelCompacting(run);
  });
}

function refusedFeature(err: unknown): RefusableFeature | null {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure) || err.cause.type !== 'FeatureRefused') return null;
  const feature = err.cause.details?.[0];
  return feature === 'compaction' || feature === 'task_budget' ? feature : null;
}

/** One summary call, tools disabled, once the prompt has reached the trigger (clientCompactionDue): its summary then
 * stands for the messages so far in later requests. An empty summary leaves the run uncompacted. */
async function compactClientSide(run: RunContext): Promise<void> {
  const reply = await run.callModel({ toolChoiceNone: true, summary: 'compaction (client-side)', instruction: COMPACTION_INSTRUCTION });
  const summary = textOf(reply.content);
  if (!summary) {
    log.warn('The client-side compaction returned no summary; the run goes on uncompacted');
    return;
  }
  const record = recordClientCompaction(run.state, summary, reply);
  log.info(`Compaction (client-side): ${record.tokensBefore} tokens summarized into ${record.summaryTokens} (before message ${record.messageIndex})`);
  run.publish();
}

/** After appending `reply` at `messageIndex`: records its compaction, if it made one. */
export function noteCompaction(state: RunState, reply: ModelReply, messageIndex: number): void {
  const record = recordCompaction(state, reply, messageIndex);
  if (record) {
    log.info(`Compaction: ${record.tokensBefore} tokens summarized into ${record.summaryTokens} (message ${messageIndex})`);
  }
}

/** What `status` shows of compaction: how many, and the size of the current prompt. */
export function compactionView(state: RunState): Pick<AgentStatusView, 'compactions' | 'compactionLog' | 'promptTokens'> {
  return {
    compactions: state.compactions?.length ?? 0,
    ...(state.compactions ? { compactionLog: state.compactions } : {}),
    promptTokens: promptTokens(state.loop.lastCallUsage),
  };
}
