// Request checks: the scripted server rejects (400 invalid_request_error) what the real Messages API rejects, so a
// bug in how an agent builds its transcript fails in tests instead of on the first real call. Messages imitate the
// real API's wording. One check is STRICTER than the real API (see ReturnedContent): a tool-calling assistant turn
// must be sent back exactly as it was returned, because a durable executor that loses or edits blocks of a turn
// (thinking, text before a tool call) is broken even where the real API would let it pass.

import { summarizedTurns } from './compaction.js';
import { SERVER_TOOL_RESULT_TYPES } from './script.js';
import { sortedKeyJson } from '../core/canonical.js';
import { isObject } from '../core/is-object.js';
import { SERVER_TOOL_NAMES } from '../core/types.js';

type Json = Record<string, unknown>;

/** Assistant/user content as an array of blocks (a string is one text block, as the API treats it). */
export function blocksOf(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

/** A block reduced to what the model produced: drops what a client may legitimately add or strip when it sends a
 * response back as a param (cache_control, `citations: null`, `caller`, null fields). */
function canonicalBlock(block: Json): string {
  switch (block.type) {
    case 'text': {
      const citations = Array.isArray(block.citations) && block.citations.length > 0 ? block.citations : undefined;
      return sortedKeyJson({ type: 'text', text: block.text, citations });
    }
    case 'tool_use':
      return sortedKeyJson({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
    case 'thinking':
      return sortedKeyJson({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    case 'redacted_thinking':
      return sortedKeyJson({ type: 'redacted_thinking', data: block.data });
    default: {
      const rest = Object.fromEntries(Object.entries(block).filter(([k, v]) => k !== 'cache_control' && v !== null));
      return sortedKeyJson(rest);
    }
  }
}

/** Every content array the server returned: by message id, and per issued tool_use id the canonical blocks of
 * each reply that carried it (a list, since ids like toolu_1_0 repeat across conversations on one server). */
export class ReturnedContent {
  readonly byMessageId = new Map<string, unknown[]>();
  private readonly byToolUseId = new Map<string, string[][]>();

  remember(messageId: string, content: unknown[]): void {
    this.byMessageId.set(messageId, content);
    const canonical = blocksOf(content).map(canonicalBlock);
    const key = canonical.join('\n');
    for (const block of blocksOf(content)) {
      if (block.type !== 'tool_use' || typeof block.id !== 'string') continue;
      const replies = this.byToolUseId.get(block.id) ?? [];
      if (!replies.some((r) => r.join('\n') === key)) replies.push(canonical);
      this.byToolUseId.set(block.id, replies);
    }
  }

  /** True when a reply that issued one of `blocks`' tool_use ids is not found whole and unchanged (as a contiguous
   * run, so a client may still concatenate a pause_turn reply and its continuation into one message). */
  isModified(blocks: Json[]): boolean {
    const canonical = blocks.map(canonicalBlock);
    for (const block of blocks) {
      if (block.type !== 'tool_use' || typeof block.id !== 'string') continue;
      const replies = this.byToolUseId.get(block.id);
      if (replies && !replies.some((reply) => containsRun(canonical, reply))) return true;
    }
    return false;
  }
}

function containsRun(haystack: string[], run: string[]): boolean {
  for (let start = 0; start + run.length <= haystack.length; start++) {
    if (run.every((item, i) => haystack[start + i] === item)) return true;
  }
  return false;
}

function checkTopLevel(body: Json): string | null {
  if (body.model === undefined || body.model === null) return 'model: Field required';
  if (typeof body.model !== 'string') return 'model: Input should be a valid string';
  if (body.model === '') return 'model: String should have at least 1 character';
  if (body.max_tokens === undefined) return 'max_tokens: Field required';
  if (!Number.isInteger(body.max_tokens)) return 'max_tokens: Input should be a valid integer';
  if ((body.max_tokens as number) < 1) return 'max_tokens: Input should be greater than or equal to 1';
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return 'stream: Input should be a valid boolean';
  if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system)) {
    return 'system: Input should be a valid string or list';
  }
  if (body.messages === undefined) return 'messages: Field required';
  if (!Array.isArray(body.messages)) return 'messages: Input should be a valid list';
  if (body.messages.length === 0) return 'messages: at least one message is required';
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return 'tools: Input should be a valid list';
    const names = new Set<string>();
    for (const [i, tool] of body.tools.entries()) {
      if (!isObject(tool)) return `tools.${i}: Input should be a valid dictionary`;
      const serverTool = serverToolProblem(tool, i);
      if (serverTool) return serverTool;
      if (typeof tool.name !== 'string') continue; // toolsets (browser, computer) carry no single name
      if (!/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name)) return `tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`;
      if (names.has(tool.name)) return 'tools: Tool names must be unique.';
      names.add(tool.name);
    }
  }
  if (body.tool_choice !== undefined) {
    const type = isObject(body.tool_choice) ? body.tool_choice.type : undefined;
    if (!['auto', 'any', 'tool', 'none'].includes(type as string)) {
      return "tool_choice: Input tag does not match any of the expected tags: 'auto', 'any', 'tool', 'none'";
    }
  }
  return null;
}

/** The server tools whose definitions are checked (their `type` is `<name>_<YYYYMMDD>`), and the blocks that carry
 * their results inside an assistant message. */
const SERVER_TOOL_FAMILIES: readonly string[] = SERVER_TOOL_NAMES;
const SERVER_RESULT_BLOCKS = new Set<string>(SERVER_TOOL_RESULT_TYPES);

/** A web_search / web_fetch / code_execution definition the real API would reject. */
function serverToolProblem(tool: Json, i: number): string | null {
  if (typeof tool.type !== 'string') return null;
  const family = SERVER_TOOL_FAMILIES.find((f) => tool.type === f || (tool.type as string).startsWith(`${f}_`));
  if (!family) return null;
  if (!new RegExp(`^${family}_\\d{8}$`).test(tool.type as string)) {
    return `tools.${i}.type: Input tag '${tool.type}' found using 'type' does not match any of the expected tags`;
  }
  if (tool.name !== family) return `tools.${i}.name: Input should be '${family}'`;
  if (tool.max_uses !== undefined && tool.max_uses !== null && !(Number.isInteger(tool.max_uses) && (tool.max_uses as number) > 0)) {
    return `tools.${i}.max_uses: Input should be greater than 0`;
  }
  for (const key of ['allowed_domains', 'blocked_domains']) {
    const v = tool[key];
    if (v !== undefined && v !== null && !(Array.isArray(v) && v.every((d) => typeof d === 'string'))) {
      return `tools.${i}.${key}: Input should be a valid list of strings`;
    }
  }
  if (Array.isArray(tool.allowed_domains) && Array.isArray(tool.blocked_domains)) {
    return `tools.${i}: cannot specify both allowed_domains and blocked_domains`;
  }
  return null;
}

function checkMessageShapes(messages: unknown[]): string | null {
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return `messages.${i}: Input should be a valid dictionary`;
    if (message.role !== 'user' && message.role !== 'assistant') return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const isLast = i === messages.length - 1;
    const { content } = message;
    if (typeof content !== 'string' && !Array.isArray(content)) return `messages.${i}.content: Input should be a valid list`;
    if (content.length === 0 && !(isLast && message.role === 'assistant')) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    if (Array.isArray(content)) {
      for (const [j, block] of content.entries()) {
        if (!isObject(block) || typeof block.type !== 'string') return `messages.${i}.content.${j}: Input should be a valid dictionary`;
        if (block.type === 'text' && (typeof block.text !== 'string' || block.text === '')) {
          return `messages.${i}.content.${j}.text: text content blocks must be non-empty`;
        }
        const isCall = block.type === 'tool_use' || block.type === 'server_tool_use';
        if (isCall && (typeof block.id !== 'string' || typeof block.name !== 'string' || !isObject(block.input))) {
          return `messages.${i}.content.${j}: \`${block.type}\` blocks need a string \`id\`, a string \`name\` and an object \`input\``;
        }
        if (SERVER_RESULT_BLOCKS.has(block.type) && message.role !== 'assistant') {
          return `messages.${i}.content.${j}: \`${block.type}\` blocks are only allowed in assistant messages`;
        }
        if ((block.type === 'tool_result' || SERVER_RESULT_BLOCKS.has(block.type)) && typeof block.tool_use_id !== 'string') {
          return `messages.${i}.content.${j}.tool_use_id: Field required`;
        }
        if (block.type === 'tool_result') {
          const problem = toolResultContentProblem(block.content, `messages.${i}.content.${j}.content`);
          if (problem) return problem;
        }
      }
    }
    if (isLast && message.role === 'assistant') {
      const blocks = blocksOf(content);
      const last = blocks[blocks.length - 1];
      if (last?.type === 'text' && typeof last.text === 'string' && /\s$/.test(last.text)) {
        return 'messages: final assistant content cannot end with trailing whitespace';
      }
    }
  }
  if ((messages[0] as Json).role !== 'user') return 'messages: first message must use the "user" role';
  return null;
}

// A tool_use naming a tool missing from `tools` is NOT rejected: the model can name a tool the run does not
// offer, and the harness must be able to answer it with an is_error result and send the turn back.
function checkToolPairing(messages: Json[]): string | null {
  const seenToolUseIds = new Set<string>();
  for (const [i, message] of messages.entries()) {
    const blocks = blocksOf(message.content);
    if (message.role === 'assistant') {
      const ids: string[] = [];
      for (const [j, block] of blocks.entries()) {
        if (block.type !== 'tool_use') continue;
        const id = block.id as string;
        if (seenToolUseIds.has(id)) return `messages.${i}.content.${j}: \`tool_use\` ids must be unique`;
        seenToolUseIds.add(id);
        ids.push(id);
      }
      if (ids.length === 0) continue;
      // Only the leading tool_result blocks of the very next message count: results after other content, or in a
      // later message, do not answer this turn (the API would merge split user messages; we report it instead).
      const next = messages[i + 1];
      const answered = new Set<string>();
      if (next?.role === 'user') {
        for (const block of blocksOf(next.content)) {
          if (block.type !== 'tool_result') break;
          answered.add(block.tool_use_id as string);
        }
      }
      const missing = ids.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    } else {
      const previous = messages[i - 1];
      const issued = new Set(
        previous?.role === 'assistant' ? blocksOf(previous.content).filter((b) => b.type === 'tool_use').map((b) => b.id) : [],
      );
      for (const [j, block] of blocks.entries()) {
        if (block.type === 'tool_result' && !issued.has(block.tool_use_id)) {
          return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      }
    }
  }
  return null;
}

/** Why the real API (or our stricter whole-turn rule) would reject this body, or null when it is acceptable. */
export function checkRequest(body: unknown, returned: ReturnedContent): string | null {
  if (!isObject(body)) return 'Request body must be a JSON object';
  const problem = checkTopLevel(body) ?? checkMessageShapes(body.messages as unknown[]);
  if (problem) return problem;
  const messages = body.messages as Json[];
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
  const usesClientTools = messages.some((m) => blocksOf(m.content).some((b) => b.type === 'tool_use' || b.type === 'tool_result'));
  if (usesClientTools && tools.length === 0) return 'Requests which include `tool_use` or `tool_result` blocks must define tools.';
  // A server tool call in the conversation needs that server tool defined (its name is the family's).
  const definedServerTools = new Set(tools.filter((t) => typeof t.type === 'string' && t.type !== 'custom').map((t) => t.name));
  for (const message of messages) {
    for (const block of blocksOf(message.content)) {
      if (block.type === 'server_tool_use' && SERVER_TOOL_FAMILIES.includes(block.name as string) && !definedServerTools.has(block.name)) {
        return `Requests which include \`server_tool_use\` blocks for ${String(block.name)} must define the ${String(block.name)} server tool.`;
      }
    }
  }
  const pairing = checkToolPairing(messages);
  if (pairing) return pairing;
  for (const [i, message] of messages.entries()) {
    if (message.role === 'assistant' && returned.isModified(blocksOf(message.content))) {
      return `assistant message at messages.${i} was modified: the whole content returned by the API must be sent back`;
    }
  }
  return null;
}

/** The turn index of a request: how many assistant messages it holds, counting those a scripted compaction
 * block or client-side summary stands for (each names the turn that made it: see compaction.ts). */
export function turnIndexOf(body: { messages: Array<{ role: string; content?: unknown }> }): number {
  let turn = summarizedTurns(body);
  for (const m of body.messages) {
    if (m.role !== 'assistant') continue;
    const compacted = blocksOf(m.content).find((b) => b.type === 'compaction' && typeof b.encrypted_content === 'string');
    const made = compacted && /^scripted-compaction:turn=(\d+)$/.exec(compacted.encrypted_content as string);
    turn = made ? Number(made[1]) + 1 : turn + 1;
  }
  return turn;
}

const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

/** The blocks a tool_result may hold (text, image, document, search_result), each in the shape the API
 * checks: a tool that returns content blocks is held to what the real API would take. */
function toolResultContentProblem(content: unknown, where: string): string | null {
  if (content === undefined || typeof content === 'string') return null;
  if (!Array.isArray(content)) return `${where}: Input should be a valid string or list`;
  for (const [k, block] of content.entries()) {
    const at = `${where}.${k}`;
    if (!isObject(block)) return `${at}: Input should be a valid dictionary`;
    const source = isObject(block.source) ? block.source : null;
    switch (block.type) {
      case 'text':
        if (typeof block.text !== 'string' || block.text === '') return `${at}.text: text content blocks must be non-empty`;
        break;
      case 'image':
        if (source?.type === 'url' && typeof source.url === 'string') break;
        if (source?.type !== 'base64' || typeof source.data !== 'string' || source.data === '') return `${at}.source: Input should be a valid base64 or url image source`;
        if (!IMAGE_MEDIA_TYPES.includes(String(source.media_type))) {
          return `${at}.source.media_type: Input should be ${IMAGE_MEDIA_TYPES.map((t) => `'${t}'`).join(', ')}`;
        }
        break;
      case 'document':
        if (source?.type === 'text' && source.media_type === 'text/plain' && typeof source.data === 'string') break;
        if (source?.type === 'base64' && source.media_type === 'application/pdf' && typeof source.data === 'string') break;
        if ((source?.type === 'url' && typeof source.url === 'string') || source?.type === 'content' || source?.type === 'file') break;
        return `${at}.source: Input should be a valid document source (text/plain text, base64 application/pdf, url, content or file)`;
      case 'search_result':
      case 'tool_reference':
        break;
      default:
        return `${at}.type: Input tag '${String(block.type)}' found using 'type' does not match any of the expected tags: 'text', 'image', 'search_result', 'document', 'tool_reference'`;
    }
  }
  return null;
}
