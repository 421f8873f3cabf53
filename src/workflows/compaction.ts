// The workflow's side of compaction (src/core/compaction.ts): a reply that begins with a compaction block is
// appended whole like any other; the run notes where it is and what it did, for `status` and `transcript`, and
// carries that through continue-as-new. The request sent from the last compaction on is the activity's work.
import { log } from '@temporalio/workflow';
import { recordCompaction } from '../core/compaction.js';
import type { AgentStatusView, ModelReply, RunState } from '../core/types.js';

/** After appending `reply` at `messageIndex`: records its compaction, if it made one. */
export function noteCompaction(state: RunState, reply: ModelReply, messageIndex: number): void {
  const record = recordCompaction(state, reply, messageIndex);
  if (record) {
    log.info(`Compaction: ${record.tokensBefore} tokens summarized into ${record.summaryTokens} (message ${messageIndex})`);
  }
}

/** What `status` shows of compaction: how many, and the size of the current prompt. */
export function compactionView(state: RunState): Pick<AgentStatusView, 'compactions' | 'compactionLog' | 'promptTokens'> {
  const last = state.loop.lastCallUsage;
  return {
    compactions: state.compactions?.length ?? 0,
    ...(state.compactions ? { compactionLog: state.compactions } : {}),
    promptTokens: last ? last.input_tokens + last.cache_creation_input_tokens + last.cache_read_input_tokens : 0,
  };
}
