// Looks for secrets in a raw (undecoded) workflow history the way someone with the database would: in every
// string, in every byte field as is, gunzipped or inflated, and in the history's JSON form (where bytes are
// base64), at each of base64's three alignments.
import { gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;

/** The raw history, fetched by a client without any data converter (GetWorkflowExecutionHistory as stored). */
export async function rawHistory(client: Client, workflowId: string): Promise<History> {
  return client.workflow.getHandle(workflowId).fetchHistory();
}

/** Where each secret shows in the history, readable; empty when none does. */
export function findPlainText(history: History, secrets: string[]): string[] {
  const found = new Set<string>();
  const check = (haystack: string, where: string) => {
    for (const s of secrets) if (haystack.includes(s)) found.add(`"${s}" in ${where}`);
  };
  const visit = (value: unknown, path: string): void => {
    if (value instanceof Uint8Array) {
      const bytes = Buffer.from(value);
      check(bytes.toString('utf8'), path);
      for (const [name, unpack] of [['gunzip', gunzipSync], ['inflate', inflateSync], ['inflateRaw', inflateRawSync]] as const) {
        try {
          check(unpack(bytes).toString('utf8'), `${path} (${name})`);
        } catch {
          // not that kind of compressed data
        }
      }
    } else if (typeof value === 'string') {
      check(value, path);
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => visit(v, `${path}[${i}]`));
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visit(v, `${path}.${k}`);
    }
  };
  visit(history, 'history');
  const json = historyToJSON(history as temporal.api.history.v1.History);
  for (const s of secrets) {
    for (const core of base64Cores(s)) if (json.includes(core)) found.add(`"${s}" base64-encoded in the history JSON`);
  }
  return [...found];
}

/** Every payload in the history outside the search attributes (which Temporal never passes through codecs),
 * with its encoding. */
export function payloadEncodings(history: History): Array<{ path: string; encoding: string }> {
  const out: Array<{ path: string; encoding: string }> = [];
  const visit = (value: unknown, path: string): void => {
    if (!value || typeof value !== 'object' || value instanceof Uint8Array) return;
    if (Array.isArray(value)) return value.forEach((v, i) => visit(v, `${path}[${i}]`));
    const record = value as Record<string, unknown>;
    if (record.metadata && typeof record.metadata === 'object' && 'data' in record) {
      const encoding = (record.metadata as Record<string, Uint8Array>).encoding;
      out.push({ path, encoding: encoding ? Buffer.from(encoding).toString() : '(none)' });
      return;
    }
    for (const [k, v] of Object.entries(record)) if (k !== 'searchAttributes') visit(v, `${path}.${k}`);
  };
  visit(history, 'history');
  return out;
}

/** Substrings that the base64 of any text containing `s` must contain, one per alignment. */
function base64Cores(s: string): string[] {
  return [0, 1, 2].map((offset) => {
    const b64 = Buffer.concat([Buffer.alloc(offset), Buffer.from(s)]).toString('base64');
    const skip = Math.ceil((offset * 4) / 3) + (offset ? 1 : 0);
    return b64.slice(skip, b64.length - 4);
  });
}

/** The decoded value of every OpenTelemetry trace header (`_tracer-data`, on activity and child starts): Temporal
 * stores headers as the interceptor wrote them, unencoded. */
export function traceHeaders(history: History): unknown[] {
  const out: unknown[] = [];
  const visit = (value: unknown): void => {
    if (!value || typeof value !== 'object' || value instanceof Uint8Array) return;
    if (Array.isArray(value)) return value.forEach(visit);
    const record = value as Record<string, unknown>;
    const fields = (record.header as { fields?: Record<string, { data?: Uint8Array }> } | undefined)?.fields;
    const data = fields?.['_tracer-data']?.data;
    if (data) out.push(JSON.parse(Buffer.from(data).toString('utf8')));
    for (const v of Object.values(record)) visit(v);
  };
  visit(history);
  return out;
}
