// A server's `elicitation/create` during a call, on the worker's side: answered at once by the server's policy, by the
// answer the run recorded for it (the call made again after a person answered), or else turned into a question that
// stops the call (NeedsInput), which the run holds (src/workflows/elicitations.ts).
import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { defaultsAnswer, recordedAnswer, type ElicitationAnswer } from '../core/elicitation.js';
import { oneLine } from '../core/transcript.js';
import type { NeedsInput } from '../tools/types.js';
import type { ResolvedMcpServer } from './config.js';

/** A call in flight on a session, for its server's elicitation requests. */
export interface InFlightCall {
  client: Client;
  tool: string;
  elicitation?: { answers: ElicitationAnswer[] };
  /** Elicitations of this attempt so far. */
  asked: number;
  /** Stops the call at a question that needs a person. */
  ask(question: NeedsInput['question']): void;
}

type ElicitingServer = Pick<ResolvedMcpServer, 'name' | 'policy'> & { log(message: string): void };

/** A server's `elicitation/create` (form mode: the client declares no other). Answered at once by the server's
 * policy (`decline`, `accept-defaults`), by the answer recorded for it (a repeated request after the run asked),
 * or else it stops its call with the question (NeedsInput), which the run holds until someone answers. */
export function answerElicitation(server: ElicitingServer, calls: InFlightCall[], request: ElicitRequest): ElicitResult {
  const params = request.params as { message: string; requestedSchema?: Record<string, unknown> };
  const schema = params.requestedSchema ?? { type: 'object', properties: {} };
  const { elicitation: policy, elicitationTimeoutMs } = server.policy;
  if (policy === 'decline') {
    server.log(`MCP server "${server.name}" asked "${oneLine(params.message, 200)}": declined (mcpServers.${server.name}.elicitation: decline)`);
    return { action: 'decline' };
  }
  if (policy === 'accept-defaults') {
    const answer = defaultsAnswer(schema);
    server.log(`MCP server "${server.name}" asked "${oneLine(params.message, 200)}": ${answer.action === 'accept' ? 'accepted with its defaults' : 'declined (its defaults do not fill every required field)'}`);
    return answer as ElicitResult;
  }
  if (calls.length !== 1) {
    server.log(`MCP server "${server.name}" asked "${oneLine(params.message, 200)}" while ${calls.length} calls were in flight on its session: which call asks cannot be told, so it is declined`);
    return { action: 'decline' };
  }
  const [call] = calls;
  if (!call.elicitation) {
    server.log(`MCP server "${server.name}" asked "${oneLine(params.message, 200)}" during "${call.tool}": declined (the run started before this worker version could hold questions)`);
    return { action: 'decline' };
  }
  const index = call.asked++;
  const key = createHash('sha256').update(JSON.stringify([params.message, schema])).digest('hex').slice(0, 32);
  const recorded = recordedAnswer(call.elicitation.answers, index, key);
  if (recorded) return { action: recorded.action, ...(recorded.content ? { content: recorded.content as ElicitResult['content'] } : {}) };
  call.ask({
    index,
    key,
    server: server.name,
    message: params.message,
    requestedSchema: schema,
    ...(elicitationTimeoutMs !== undefined ? { timeoutMs: elicitationTimeoutMs } : {}),
  });
  // The call has been cancelled: the server's tool handler stops; the call is made again with the answer.
  throw new McpError(ErrorCode.InternalError, 'the question was handed to the run; the call will be made again with its answer');
}
