// The module of workflow interceptors bundled with the agent's workflow code (by `npm run build`,
// src/worker/workflow-code.ts and AgentPlugin): OpenTelemetry's, for traced runs (src/workflows/otel-interceptors.ts).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const OTEL_WORKFLOW_INTERCEPTORS = ['../workflows/otel-interceptors.js', '../workflows/otel-interceptors.ts']
  .map((p) => fileURLToPath(new URL(p, import.meta.url)))
  .find((p) => existsSync(p))!;
