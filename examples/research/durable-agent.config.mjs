// An orchestrator with two sub-agents: it hands two research questions to `researcher` at once (two child runs in
// parallel, each with its own web_search and calculator calls), then the findings to `writer`, and answers with the
// writer's report. Offline: the scripted model below stands in for Claude (used when ANTHROPIC_API_KEY is unset).
//   npm run --silent agent -- run --config examples/research/durable-agent.config.mjs "Compare France and Germany"
//   npm run --silent agent -- status <id>          # the children: id, agent, status, steps, cost
//   npm run --silent agent -- transcript <id>/<tool_use id>   # one child's own conversation
import { defineConfig } from 'durable-agent';
import { researchScript } from './scripted-model.mjs';

export default defineConfig({
  agents: {
    researcher: {
      description: 'Finds one fact on the web and checks any arithmetic with the calculator. Give it one question per call.',
      system: 'You are the researcher. Answer the one question you are given with a sourced fact; use the calculator for arithmetic.',
      tools: ['web_search', 'calculator'],
      maxSteps: 6,
      budgetTokens: 50_000,
    },
    writer: {
      description: 'Writes a short report from findings it is given in the task.',
      system: 'You are the writer. Turn the findings you are given into a short report; you have no tools.',
      maxSteps: 2,
    },
  },
  // Replies of the offline scripted model (used with --scripted, or when ANTHROPIC_API_KEY is unset).
  scriptedModel: researchScript,
});
