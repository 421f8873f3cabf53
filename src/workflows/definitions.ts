// Message definitions shared by the workflow, the activities, the client and the CLI.
// The wire name is the TypeScript name.
import { defineQuery } from '@temporalio/workflow';
import type { TranscriptPage } from '../core/types.js';

/** Messages [from, to) of the transcript, at most about TRANSCRIPT_PAGE_BYTES of them per page. The model
 * activity reads the transcript through this query when its cache misses; queries are not recorded in
 * history, so the transcript is stored there once. */
export const transcriptPage = defineQuery<TranscriptPage, [from: number, to: number]>('transcriptPage');
