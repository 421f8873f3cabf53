// @ts-check
// The issue-triage bot: four tools on a local issue tracker, and a scripted stand-in for Claude.
//   npm run --silent agent -- run --config examples/triage/durable-agent.config.js "Triage issue #39"
// The tracker is $TRIAGE_STORE, or a copy of seed-issues.json made on first use in .durable-agent/triage/.
import { defineConfig } from 'durable-agent';
import { triageScript } from './scripted-model.js';
import { issueStoreFromEnv } from './store.js';
import { triageTools } from './tools/index.js';

export default defineConfig({
  tools: triageTools(issueStoreFromEnv()),
  // The replies of the offline scripted model, used when no ANTHROPIC_API_KEY is set (or with --scripted).
  scriptedModel: triageScript,
});
