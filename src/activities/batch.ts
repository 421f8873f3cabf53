// Batch mode's activities (docs/background-agents.md): hand a model call to the worker's batcher
// (`submitModelBatchRequest`: a short activity, the gathering window and the batch's creation), read where it is
// (`pollModelBatchRequest`, a local activity the run calls between durable timers) and give it up
// (`releaseModelBatchRequest`, when the run is cancelled or its deadline comes). Thin: the batcher does the I/O.
import Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { batchCustomId, nextPollMs, statusOfErrorType } from '../core/batch.js';
import type { BatchCallInput, BatchPoll, BatchSubmission, ModelReply } from '../core/types.js';
import type { ModelBatcher } from './batcher.js';
import { startHeartbeat } from './heartbeat.js';
import { classifyModelError, missingApiKeyFailure, refusedFeatureFailure } from './model-errors.js';
import type { ModelCallDeps } from './model.js';
import { prepareModelRequest, replyOf } from './prepare-request.js';
import { requestBetas } from './request.js';
import { observeModelCall } from '../observability/activity-telemetry.js';

export interface BatchActivityDeps extends Omit<ModelCallDeps, 'localModelCalls'> {
  batcher: ModelBatcher;
}

export function createBatchActivities(deps: BatchActivityDeps) {
  const { batcher } = deps;
  const baseURL = deps.connection.baseURL;
  return {
    async submitModelBatchRequest(input: BatchCallInput): Promise<BatchSubmission> {
      if (!deps.connection.apiKey) throw missingApiKeyFailure();
      const ctx = Context.current();
      // A retry of an attempt that had already put the request in a batch (its worker died before reporting): the
      // heartbeat carried the batch, so the request is not sent a second time.
      const earlier = ctx.info.heartbeatDetails as BatchSubmission | undefined;
      if (earlier?.batchId) return earlier;
      const asked = { compaction: false, taskBudget: false };
      const { input: call, request } = await prepareModelRequest(input, ctx.info, deps, asked);
      // prepareModelRequest has refused a call without a run.
      const customId = batchCustomId(ctx.info.workflowExecution!, input.step, input.submission);
      // Beats while the batch is gathered (nothing to carry yet), then carry the batch the request went into.
      let submission: BatchSubmission | undefined;
      const stopHeartbeat = startHeartbeat(ctx, () => submission);
      try {
        // The streamed request's parameters, unstreamed (a batch request cannot stream): the same request otherwise.
        const batchId = await batcher.submit(customId, { ...request, stream: false } as Anthropic.MessageCreateParamsNonStreaming, requestBetas(call));
        submission = { batchId, customId, submittedAt: Date.now(), pollMs: batcher.options.pollMs, asked };
        ctx.heartbeat(submission);
        return submission;
      } catch (err) {
        throw classifyModelError(err, baseURL);
      } finally {
        stopHeartbeat();
      }
    },

    async pollModelBatchRequest(s: BatchSubmission): Promise<BatchPoll> {
      let found;
      try {
        found = await batcher.poll(s.batchId, s.customId);
      } catch (err) {
        throw classifyModelError(err, baseURL);
      }
      if (found.status === 'pending') return { status: 'pending', nextPollMs: nextPollMs(found.ageMs, batcher.options) };
      const { result } = found;
      const which = `request ${s.customId} of batch ${s.batchId}`;
      switch (result.type) {
        case 'succeeded': {
          const reply: ModelReply = { ...replyOf(result.message, deps), batch: { id: s.batchId, customId: s.customId } };
          const observed = observeModelCall(deps.telemetry, baseURL);
          observed.request({ model: result.message.model, maxOutputTokens: 0 }, []);
          observed.replied(reply);
          return { status: 'succeeded', reply };
        }
        case 'errored': {
          // Classified as the same error from a direct call would be: one retrying cannot fix fails the run (a
          // refused feature lets the run go on without it); a transient one is the run's batchFallback to handle.
          const error = result.error.error;
          const apiError = Anthropic.APIError.generate(statusOfErrorType(error?.type), result.error, error?.message, new Headers());
          const failure = refusedFeatureFailure(apiError, s.asked ?? { compaction: false, taskBudget: false }) ?? classifyModelError(apiError, baseURL);
          if (failure instanceof ApplicationFailure && failure.nonRetryable) throw failure;
          return { status: 'errored', error: `${which} errored: ${failure.message}` };
        }
        case 'expired':
          return { status: 'expired', error: `${which} expired: the batch did not process it within 24 hours` };
        case 'canceled':
          return { status: 'canceled', error: `${which} was canceled (the batch was cancelled from outside the run)` };
      }
    },

    async releaseModelBatchRequest(s: BatchSubmission): Promise<{ canceled: boolean }> {
      try {
        return await batcher.release(s.batchId, s.customId);
      } catch (err) {
        throw classifyModelError(err, baseURL);
      }
    },
  };
}
