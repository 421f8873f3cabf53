// One worker log line per failed attempt of the agent's activities that says truly what follows: another attempt,
// or none (the attempts are spent, or the failure is one retrying cannot fix). The SDK's own line cannot know.
import { CompleteAsyncError, type Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { attemptText } from '../core/tool-policy.js';

/** The agent's activity types (the ones this logs for; a team's own activities on the same worker are left alone). */
export const AGENT_ACTIVITY_TYPES = ['callModel', 'runTool', 'describeTools', 'deliverWebhook'] as const;

/** What follows a failed attempt of `runTool`, `callModel`, `describeTools` (for the model: the run fails). */
const WHEN_NONE_FOLLOWS: Record<(typeof AGENT_ACTIVITY_TYPES)[number], string> = {
  runTool: 'the model gets the error',
  callModel: 'the run fails',
  describeTools: 'the run fails',
  deliverWebhook: 'the event is not delivered',
};

export const attemptLogInterceptor: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      try {
        return await next(input);
      } catch (err) {
        logFailedAttempt(ctx, err);
        throw err;
      }
    },
  },
});

function logFailedAttempt(ctx: Context, err: unknown): void {
  const type = ctx.info.activityType as (typeof AGENT_ACTIVITY_TYPES)[number];
  if (!AGENT_ACTIVITY_TYPES.includes(type) || err instanceof CompleteAsyncError || ctx.cancellationSignal.aborted) return;
  const { attempt, retryPolicy } = ctx.info;
  const maximumAttempts = retryPolicy?.maximumAttempts ?? 0;
  const nonRetryable = err instanceof ApplicationFailure && err.nonRetryable;
  const what = nonRetryable
    ? `not retried (retrying cannot fix it): ${WHEN_NONE_FOLLOWS[type]}`
    : maximumAttempts === 0 || attempt < maximumAttempts
      ? 'another attempt follows'
      : `that was the last attempt: ${WHEN_NONE_FOLLOWS[type]}`;
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  ctx.log.warn(`${type} failed on ${attemptText(attempt, maximumAttempts)}: ${message}; ${what}`);
}
