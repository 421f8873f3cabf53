// The workflow bundle's entry point: every workflow the worker registers.
export { agentWorkflow } from './agent.js';
export { agentToolCatalog } from './tool-catalog.js';
