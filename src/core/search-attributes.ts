// Custom search attributes: registered on the embedded server at start, and documented in the README
// (`temporal operator search-attribute create`) for other servers. Search attributes are stored in plain
// text (never through a payload codec), so nothing secret may go in them.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const AgentStatus = defineSearchAttributeKey('AgentStatus', SearchAttributeType.KEYWORD);
export const AgentSteps = defineSearchAttributeKey('AgentSteps', SearchAttributeType.INT);
export const AgentTokens = defineSearchAttributeKey('AgentTokens', SearchAttributeType.INT);
export const AgentCostUsd = defineSearchAttributeKey('AgentCostUsd', SearchAttributeType.DOUBLE);
export const AgentStopReason = defineSearchAttributeKey('AgentStopReason', SearchAttributeType.KEYWORD);
export const AgentGuard = defineSearchAttributeKey('AgentGuard', SearchAttributeType.KEYWORD);
export const AgentModel = defineSearchAttributeKey('AgentModel', SearchAttributeType.KEYWORD);

export const AGENT_SEARCH_ATTRIBUTES = [
  AgentStatus,
  AgentSteps,
  AgentTokens,
  AgentCostUsd,
  AgentStopReason,
  AgentGuard,
  AgentModel,
] as const;
