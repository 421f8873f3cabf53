// The task queue every command works on: AGENT_TASK_QUEUE, else the default. Read here only.
import { DEFAULTS } from '../core/policies.js';

export function taskQueue(): string {
  return process.env.AGENT_TASK_QUEUE || DEFAULTS.taskQueue;
}
