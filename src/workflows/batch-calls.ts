// Batch mode on the workflow's side (`modelCalls: 'batch'`; docs/background-agents.md): a model call handed to the
// worker's batcher by a short activity, then waited for with durable timers and a local activity that polls. Why
// timers and polls rather than an activity completed from outside: the batch id and request id are in history as soon
// as the submit activity completes, so a run waits for its batch across worker restarts and redeploys with nothing
// kept anywhere else; while it sleeps it holds no slot (a timer is the server's), and each poll is a marker, not a
// task. An activity completed from outside would need its task token kept outside history, and a worker that died
// would leave runs waiting for a completion no one remembers to send.
import { ActivityCancellationType, ApplicationFailure, CancellationScope, isCancellation, log, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import { BATCH_POLL_OPTIONS, BATCH_SUBMIT_OPTIONS, MAX_BATCH_SUBMISSIONS } from '../core/batch.js';
import type { BatchFallback, BatchPoll, BatchSubmission, ModelCallByDigest, ModelReply } from '../core/types.js';
import { CANCELLATION, runPriority } from './proxies.js';

type Activities = ReturnType<typeof createActivities>;
const { submitModelBatchRequest } = proxyActivities<Activities>(BATCH_SUBMIT_OPTIONS);
const { pollModelBatchRequest, releaseModelBatchRequest } = proxyLocalActivities<Activities>(BATCH_POLL_OPTIONS);

export interface BatchCallOptions {
  /** The call's summary in the UI (`model #3 · 12 messages`). */
  summary: string;
  fallback: BatchFallback;
  /** The batch the call waits for, then null: the run's live view (`status`: "waiting for batch msgbatch_…"). */
  waiting(batch: BatchSubmission | null): void;
  /** The same call made directly (`batchFallback: 'direct'`). */
  direct(): Promise<ModelReply>;
}

/** One model call as a request of a Message Batch; an errored (transient) or expired request falls back as the run
 * says: into a later batch (at most MAX_BATCH_SUBMISSIONS in all), or one direct call. A cancel (the user's, or the
 * deadline's) releases the request, and the worker cancels the batch when no other run needs it. */
export async function callModelInBatch(input: ModelCallByDigest, step: number, options: BatchCallOptions): Promise<ModelReply> {
  for (let submission = 1; ; submission++) {
    const submitted = await submitModelBatchRequest.executeWithOptions(
      { ...BATCH_SUBMIT_OPTIONS, ...CANCELLATION, ...runPriority(), summary: `${options.summary} · batch` },
      [{ ...input, step, submission }],
    );
    options.waiting(submitted);
    let outcome: Exclude<BatchPoll, { status: 'pending' }>;
    try {
      outcome = await resultOf(submitted);
    } catch (err) {
      if (isCancellation(err)) await CancellationScope.nonCancellable(() => release(submitted));
      throw err;
    } finally {
      options.waiting(null);
    }
    if (outcome.status === 'succeeded') return outcome.reply;
    if (options.fallback === 'direct') {
      log.warn(`${outcome.error}; the call is made directly (batchFallback: direct)`);
      return options.direct();
    }
    if (submission >= MAX_BATCH_SUBMISSIONS) {
      throw ApplicationFailure.create({
        type: 'BatchRequestFailed',
        nonRetryable: true,
        message: `${outcome.error}; the call went into ${MAX_BATCH_SUBMISSIONS} batches without an answer (set batchFallback: "direct", --batch-fallback direct, to make it directly then)`,
      });
    }
    log.warn(`${outcome.error}; the call goes into a later batch`);
  }
}

/** Sleeps (a durable timer), polls, and again, as long as the batch runs: the wait grows with the batch's age. */
async function resultOf(s: BatchSubmission): Promise<Exclude<BatchPoll, { status: 'pending' }>> {
  let wait = s.pollMs;
  for (;;) {
    await sleep(wait, { summary: `waiting for batch ${s.batchId}` });
    const poll = await pollModelBatchRequest.executeWithOptions({ ...BATCH_POLL_OPTIONS, ...CANCELLATION, summary: `poll ${s.batchId}` }, [s]);
    if (poll.status !== 'pending') return poll;
    wait = poll.nextPollMs;
  }
}

/** The run no longer needs its request. Best effort: a release that fails leaves the batch to end by itself. */
async function release(s: BatchSubmission): Promise<void> {
  try {
    const { canceled } = await releaseModelBatchRequest.executeWithOptions(
      { ...BATCH_POLL_OPTIONS, cancellationType: ActivityCancellationType.TRY_CANCEL, summary: `release ${s.customId}` },
      [s],
    );
    if (canceled) log.info(`Batch ${s.batchId} was cancelled: no run needs its requests any more`);
  } catch (err) {
    log.warn(`The request ${s.customId} of batch ${s.batchId} could not be released: ${(err as Error).message}`);
  }
}
