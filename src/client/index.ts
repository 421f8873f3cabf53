// The typed client API: start a run, attach to one, get its result. The CLI is built on these.
export { connectClient, resolveTemporalTarget, type TemporalTarget } from './connection.js';
export { getStatus, getTranscript, listRuns, type ListRunsOptions, type RunSummary, type StatusReport } from './inspect.js';
export { getTurnUsage, type TurnUsage } from './turns.js';
export { modelCallsInFlight, type ModelCallInFlight } from './model-progress.js';
export { toolCallsInFlight, type ToolCallInFlight } from './tool-progress.js';
export { completeToolCall, ToolCompletionError, type CompletedToolCall } from './complete-tool.js';
export { answerElicitation, approveToolCall, cancelRun, closeChatRun, denyToolCall, sendFollowUp } from './steer.js';
export { defaultSettings } from '../core/settings.js';
export { checkAgentSettings, InvalidSettingsError, settingsProblem } from '../core/settings-check.js';

export { AGENT_WORKFLOW } from '../workflows/definitions.js';
export { type RunPriority } from '../core/priority.js';

export {
  replayRuns,
  ReplayInputError,
  type ReplayReport,
  type ReplayRunsOptions,
  type RunReplay,
  type StepCheck,
  type ToolCheck,
  type ModelCheck,
  type Divergence,
} from './replay-runs.js';
export { forkRun, ForkError, type ForkOptions, type ForkedRun } from './fork.js';
export { resumeAgent, RunNotResumableError, type ResumeOptions } from './resume.js';
export {
  InvalidPriorityError,
  startAgent,
  getAgentResult,
  WorkflowNotFoundError,
  searchAttributesRegistered,
  runTaskQueue,
  describeIfExists,
  newWorkflowId,
  runDetails,
  type StartAgentOptions,
  type StartedAgent,
} from './start.js';
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
} from './schedules.js';
export {
  getTaskBatchResults,
  InvalidTaskBatchError,
  listTaskBatch,
  startTasks,
  taskWorkflowIds,
  type BatchTask,
  type StartedTask,
  type StartTasksOptions,
} from './task-file.js';
