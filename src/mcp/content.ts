// An MCP tool result as the content of a Messages API tool_result: text stays text, images become image
// blocks, embedded resources become documents (text or PDF) or images. What the API cannot take (audio,
// other binary types) is replaced by a short note, so the model knows something was there.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResultContentBlock } from '../core/types.js';

type McpContent = CallToolResult['content'][number];
type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

const IMAGE_TYPES = new Set<string>(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** The tool_result content of an MCP result: one string when it is all text (the common case, and the most
 * compact in the transcript), else the blocks. */
export function toolResultContent(result: Pick<CallToolResult, 'content' | 'structuredContent'>): string | ToolResultContentBlock[] {
  const blocks = (result.content ?? []).flatMap(blockOf);
  // A server that answers only with structured content (allowed when the tool has an output schema).
  if (blocks.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  if (blocks.every((b) => b.type === 'text')) return blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
  return blocks;
}

function blockOf(content: McpContent): ToolResultContentBlock[] {
  switch (content.type) {
    case 'text':
      // The API refuses empty text blocks.
      return content.text ? [{ type: 'text', text: content.text }] : [];
    case 'image':
      return [imageOrNote(content.data, content.mimeType, 'image')];
    case 'audio':
      return [note(`[audio (${content.mimeType}, ${base64Bytes(content.data)} bytes) omitted: the Messages API does not take audio]`)];
    case 'resource_link':
      return [note(`Resource link: ${content.name} <${content.uri}>${content.description ? ` (${content.description})` : ''}`)];
    case 'resource':
      return [resourceBlock(content.resource)];
    default: {
      const unknown = content as { type?: unknown };
      return [note(`[content of type ${JSON.stringify(unknown.type)} omitted: not supported]`)];
    }
  }
}

function resourceBlock(resource: { uri: string; mimeType?: string; text?: string; blob?: string }): ToolResultContentBlock {
  const { uri, mimeType } = resource;
  if (typeof resource.text === 'string') {
    return resource.text
      ? { type: 'document', source: { type: 'text', media_type: 'text/plain', data: resource.text }, title: uri }
      : note(`[resource ${uri} is empty]`);
  }
  const blob = resource.blob ?? '';
  if (mimeType && IMAGE_TYPES.has(mimeType)) return imageOrNote(blob, mimeType, `resource ${uri}`);
  if (mimeType === 'application/pdf') {
    return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: blob }, title: uri };
  }
  if (mimeType?.startsWith('text/')) {
    const text = Buffer.from(blob, 'base64').toString('utf8');
    if (text) return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, title: uri };
  }
  return note(`[resource ${uri} (${mimeType ?? 'unknown type'}, ${base64Bytes(blob)} bytes) omitted: binary content the Messages API does not take]`);
}

function imageOrNote(data: string, mimeType: string, what: string): ToolResultContentBlock {
  if (IMAGE_TYPES.has(mimeType)) {
    return { type: 'image', source: { type: 'base64', media_type: mimeType as ImageMediaType, data } };
  }
  return note(`[${what} (${mimeType}) omitted: the Messages API takes JPEG, PNG, GIF and WebP images]`);
}

function note(text: string): ToolResultContentBlock {
  return { type: 'text', text };
}

function base64Bytes(data: string): number {
  return Buffer.byteLength(data, 'base64');
}
