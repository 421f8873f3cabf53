// `durable-agent/background`: agents nobody waits on. Schedules (a run at each firing of a Temporal Schedule) and
// task batches (a run per line of a task file, started idempotently and followed by name). docs/background-agents.md.
export {
  createAgentSchedule,
  deleteAgentSchedule,
  describeAgentSchedule,
  InvalidScheduleError,
  listAgentSchedules,
  OVERLAP_POLICIES,
  pauseAgentSchedule,
  ScheduleNotFoundError,
  triggerAgentSchedule,
  unpauseAgentSchedule,
  type AgentScheduleDescription,
  type AgentScheduleSummary,
  type CreateScheduleOptions,
  type OverlapPolicy,
  type ScheduledRun,
} from '../client/schedules.js';
export {
  getTaskBatchResults,
  InvalidTaskBatchError,
  listTaskBatch,
  startTasks,
  taskWorkflowIds,
  type BatchTask,
  type StartedTask,
  type StartTasksOptions,
} from '../client/task-file.js';
// The types those return, from the root too: a batch's runs and results are ordinary runs and results.
export type { RunSummary, ListRunsOptions } from '../client/inspect.js';
export type { AgentResult } from '../core/types.js';
