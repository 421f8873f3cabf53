// MCP content as the tool_result content the Messages API takes.
import { describe, expect, it } from 'vitest';
import { toolResultContent } from '../../src/mcp/content.js';

const PNG = 'iVBORw0KGgo=';

describe('toolResultContent', () => {
  it('joins text-only results into one string, dropping empty text blocks the API would refuse', () => {
    expect(toolResultContent({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: '' }, { type: 'text', text: 'b' }] })).toBe('a\nb');
  });

  it('maps images, embedded resources and links', () => {
    expect(
      toolResultContent({
        content: [
          { type: 'image', data: PNG, mimeType: 'image/png' },
          { type: 'image', data: PNG, mimeType: 'image/svg+xml' },
          { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'hello' } },
          { type: 'resource', resource: { uri: 'file:///b.pdf', mimeType: 'application/pdf', blob: 'JVBERi0=' } },
          { type: 'resource', resource: { uri: 'file:///c.png', mimeType: 'image/png', blob: PNG } },
          { type: 'resource', resource: { uri: 'file:///d.md', mimeType: 'text/markdown', blob: Buffer.from('# hi').toString('base64') } },
          { type: 'resource', resource: { uri: 'file:///e.bin', mimeType: 'application/octet-stream', blob: 'AAEC' } },
          { type: 'resource_link', uri: 'file:///f.txt', name: 'f' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        ],
      }),
    ).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      { type: 'text', text: '[image (image/svg+xml) omitted: the Messages API takes JPEG, PNG, GIF and WebP images]' },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'hello' }, title: 'file:///a.txt' },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' }, title: 'file:///b.pdf' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: '# hi' }, title: 'file:///d.md' },
      { type: 'text', text: '[resource file:///e.bin (application/octet-stream, 3 bytes) omitted: binary content the Messages API does not take]' },
      { type: 'text', text: 'Resource link: f <file:///f.txt>' },
      { type: 'text', text: '[audio (audio/wav, 3 bytes) omitted: the Messages API does not take audio]' },
    ]);
  });

  it('falls back to the structured content when there is no content', () => {
    expect(toolResultContent({ content: [], structuredContent: { temperature: 21 } })).toBe('{"temperature":21}');
  });
});
