// One worker log line per failed attempt of the agent's activities that says truly what follows: another attempt,
// or none (the attempts are spent, or the failure is one retrying cannot fix). The SDK's own line cannot know. Only
// AGENT_ACTIVITY_TYPES: a team's own activities on the same worker are left alone.
import { CompleteAsyncError, type Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { AGENT_ACTIVITY_TYPES, MODEL_CALL_OPTIONS, TOOL_CALL_OPTIONS } from '../core/policies.js';
import { attemptText } from '../core/tool-policy.js';
import { BATCH_POLL_OPTIONS, BATCH_SUBMIT_OPTIONS } from '../core/batch.js';

/** What follows a failed attempt of `runTool`, `callModel`, `describeTools` (for the model: the run fails). */
const WHEN_NONE_FOLLOWS: Record<(typeof AGENT_ACTIVITY_TYPES)[number], string> = {
  runTool: 'the model gets the error',
  callModel: 'the run fails',
  describeTools: 'the run fails',
  deliverWebhook: 'the event is not delivered',
  submitModelBatchRequest: 'the run fails',
  pollModelBatchRequest: 'the run fails',
  releaseModelBatchRequest: 'the batch is left to end by itself',
};

/** The attempt limit a worker's own definitions give an activity of `type` called with `args` (the tool's retry
 * policy for `runTool`), or undefined when they do not say. */
export type AttemptLimitOf = (type: AgentActivityType, args: unknown[]) => number | undefined;

type AgentActivityType = (typeof AGENT_ACTIVITY_TYPES)[number];

/** The limits the workflow schedules with when a tool sets none. */
const DEFAULT_LIMITS: Record<AgentActivityType, number> = {
  runTool: TOOL_CALL_OPTIONS.retry.maximumAttempts,
  callModel: MODEL_CALL_OPTIONS.retry.maximumAttempts,
  describeTools: TOOL_CALL_OPTIONS.retry.maximumAttempts,
  deliverWebhook: 0, // no limit: WEBHOOK_DELIVERY_OPTIONS bounds deliveries by time
  submitModelBatchRequest: BATCH_SUBMIT_OPTIONS.retry.maximumAttempts,
  pollModelBatchRequest: BATCH_POLL_OPTIONS.retry.maximumAttempts,
  releaseModelBatchRequest: BATCH_POLL_OPTIONS.retry.maximumAttempts,
};

/** `limitOf` stands in for the retry policy when the task came without one: a server with eager activity
 * execution (`system.enableActivityEagerExecution`, on in the embedded server) hands the worker the activities a
 * workflow task schedules in its reply, and that task's info has no retry policy (Server 1.29). */
export function attemptLogInterceptor(limitOf: AttemptLimitOf = () => undefined): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        try {
          return await next(input);
        } catch (err) {
          logFailedAttempt(ctx, err, (type) => limitOf(type, input.args) ?? DEFAULT_LIMITS[type]);
          throw err;
        }
      },
    },
  });
}

function logFailedAttempt(ctx: Context, err: unknown, limitOf: (type: AgentActivityType) => number): void {
  const type = ctx.info.activityType as AgentActivityType;
  if (!AGENT_ACTIVITY_TYPES.includes(type) || err instanceof CompleteAsyncError || ctx.cancellationSignal.aborted) return;
  const { attempt, retryPolicy } = ctx.info;
  const maximumAttempts = retryPolicy ? (retryPolicy.maximumAttempts ?? 0) : limitOf(type);
  const nonRetryable = err instanceof ApplicationFailure && err.nonRetryable;
  const what = nonRetryable
    ? `not retried (retrying cannot fix it): ${WHEN_NONE_FOLLOWS[type]}`
    : maximumAttempts === 0 || attempt < maximumAttempts
      ? 'another attempt follows'
      : `that was the last attempt: ${WHEN_NONE_FOLLOWS[type]}`;
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  ctx.log.warn(`${type} failed on ${attemptText(attempt, maximumAttempts)}: ${message}; ${what}`);
}
