// The typed client API the CLI, `serve` and the tests are built on: start a run, attach to one, read it, steer it,
// get its result. The package's own entry points (src/index.ts, durable-agent/background) import from the modules.
export { getStatus, getTranscript, listRuns, type RunSummary, type StatusReport } from './inspect.js';
export { getTurnUsage } from './turns.js';
export { completeToolCall, ToolCompletionError } from './complete-tool.js';
export { answerElicitation, approveToolCall, cancelRun, closeChatRun, denyToolCall, isChatRun, sendFollowUp } from './steer.js';
export { defaultSettings } from '../core/settings.js';
export { InvalidSettingsError } from '../core/settings-check.js';
export { AGENT_WORKFLOW } from '../workflows/definitions.js';
export { type RunPriority } from '../core/priority.js';
export { replayRuns, ReplayInputError, type ReplayReport } from './replay-runs.js';
export { forkRun, forkSourceSettings, ForkError, type ForkedRun } from './fork.js';
export { resumeAgent, RunNotResumableError, type ResumeOptions } from './resume.js';
export { startAgent, getAgentResult, describeIfExists } from './start.js';
