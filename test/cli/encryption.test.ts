// Encryption from the command line: AGENT_ENCRYPTION_KEYS turns it on for every command; a malformed, missing
// or wrong key is one line naming the variable, exit 2; a rotated key list still reads old runs; `codec-server`
// serves the UI's protocol with the same keys.
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { describe, expect, it, vi } from 'vitest';
import { defaultSettings } from '../../src/client/index.js';
import { agentDataConverter } from '../../src/codec/data-converter.js';
import { AGENT_WORKFLOW } from '../../src/workflows/definitions.js';
import { expectExit, expectUsageError, jsonOf, useCli } from '../helpers/cli.js';
import { findPlainText, rawHistory } from '../helpers/plaintext.js';

const { session, client, scriptFile } = useCli();
const key = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
const TASK = 'Search for the population of France and calculate what 15% of that number is';

describe.concurrent('AGENT_ENCRYPTION_KEYS on the command line', { timeout: 120_000 }, () => {
  it('a malformed key list is exit 2 with one line naming the variable, for start, worker and codec-server alike', async () => {
    const { cli } = session();
    const short = `k1:${randomBytes(16).toString('base64')}`;
    for (const args of [['start', 'a task'], ['worker', '--scripted'], ['codec-server', '--port', '0']]) {
      const exit = await cli(args, { AGENT_ENCRYPTION_KEYS: short });
      expectUsageError(exit, /^error: AGENT_ENCRYPTION_KEYS entry 1 \(key id "k1"\): the key is 16 bytes, AES-256 needs 32/m);
      expect(exit.stderr.trim().split('\n')).toHaveLength(1);
    }
    expectUsageError(await cli(['codec-server']), /AGENT_ENCRYPTION_KEYS is not set: the codec server needs the keys/);
  });

  it('a run with keys stores nothing readable; reading it without its key, or with a wrong one, is exit 2 naming the variable; after a rotation it reads', async () => {
    const { cli } = session();
    const [oldKey, otherKey, newKey] = [key('k1'), key('k1'), key('k2')];
    const run = await cli(['run', '--scripted', '--json', TASK], { AGENT_ENCRYPTION_KEYS: oldKey });
    expectExit(run, 0);
    const doc = jsonOf<{ workflowId: string; status: string; text: string }>(run);
    expect(doc.status).toBe('completed');
    expect(doc.workflowId).not.toMatch(/population|france/i);
    expect(findPlainText(await rawHistory(client(), doc.workflowId), [TASK, 'population of France', '10,290,900'])).toEqual([]);

    const without = await cli(['result', '--json', doc.workflowId]);
    expectUsageError(without, /^error: this run's data is encrypted \(key id "k1"\) and AGENT_ENCRYPTION_KEYS is not set here/m);
    expect(without.stderr.trim().split('\n')).toHaveLength(1);
    const wrong = await cli(['result', '--json', doc.workflowId], { AGENT_ENCRYPTION_KEYS: otherKey });
    expectUsageError(wrong, /^error: data encrypted with key id "k1" does not decrypt with the key "k1" of AGENT_ENCRYPTION_KEYS: the key is wrong/m);
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
    const rotatedAway = await cli(['result', '--json', doc.workflowId], { AGENT_ENCRYPTION_KEYS: newKey });
    expectUsageError(rotatedAway, /key id "k1", which AGENT_ENCRYPTION_KEYS does not list \(it lists k2\)/);

    // Every command that reads the run says the same in one line, exit 2: no replay dump, no [ERROR] line, no base64.
    for (const command of ['result', 'status', 'transcript', 'watch']) {
      const cases = [
        [undefined, /^error: this run's data is encrypted \(key id "k1"\) and AGENT_ENCRYPTION_KEYS is not set here: set it to the keys the workers use\n$/],
        [otherKey, /^error: data encrypted with key id "k1" does not decrypt with the key "k1" of AGENT_ENCRYPTION_KEYS: the key is wrong \(or the data was altered\)\n$/],
        [newKey, /^error: this data is encrypted with key id "k1", which AGENT_ENCRYPTION_KEYS does not list \(it lists k2\): add that key back/],
      ] as const;
      const exits = await Promise.all(cases.map(([keys]) => cli([command, doc.workflowId], keys ? { AGENT_ENCRYPTION_KEYS: keys } : {})));
      cases.forEach(([keys, why], i) => {
        const exit = exits[i];
        expect({ command, code: exit.code, stdout: exit.stdout, stderr: exit.stderr }).toMatchObject({ code: 2, stdout: '' });
        expect(exit.stderr, `${command} with ${keys ? 'a wrong key' : 'no key'}`).toMatch(why);
        expect(exit.stderr.trim().split('\n')).toHaveLength(1);
      });
    }

    const rotated = await cli(['result', '--json', doc.workflowId], { AGENT_ENCRYPTION_KEYS: `${newKey},${oldKey}` });
    expectExit(rotated, 0);
    expect(jsonOf(rotated)).toEqual(doc);
  });

  it('a worker without keys says at start which runs wait for a key, and names the key of the first task it cannot read, once; a keyed worker then runs them', async () => {
    const keys = key('k1');
    const { cli, spawn, taskQueue } = session();
    const waiting = await cli(['start', '--tools', 'calculator', 'waits for a keyed worker'], { AGENT_ENCRYPTION_KEYS: keys });
    expectExit(waiting, 0);
    // A run on the plain queue, as every encrypted run was before key queues.
    const keyed = new Client({ connection: client().connection, dataConverter: agentDataConverter({ AGENT_ENCRYPTION_KEYS: keys }) });
    const legacy = await keyed.workflow.start(AGENT_WORKFLOW, {
      taskQueue,
      workflowId: `legacy-${randomUUID()}`,
      args: [{ task: 'an old encrypted run', settings: defaultSettings({ tools: ['calculator'] }) }],
      // Short: the keyless worker fails the first task and lets each later attempt time out (the SDK reports a task's
      // failure once), so the third attempt and the keyed worker's turn each come a workflow task timeout later.
      workflowTaskTimeout: '3s',
    });
    const script = await scriptFile([{ content: [{ type: 'text', text: 'Done.' }], stop_reason: 'end_turn' }]);
    const worker = spawn(['worker', '--scripted'], { AGENT_SCRIPT: script }, 110_000);
    let keyedWorker: ReturnType<typeof spawn> | undefined;
    try {
      await worker.waitForStderr(new RegExp(`\\[WARN\\] 1 running run is encrypted with key id "k1" \\(task queue "${taskQueue}@k1"\\), which this worker cannot read: AGENT_ENCRYPTION_KEYS is not set here`));
      await worker.waitForStderr(/\[ERROR\] this worker was given a task it cannot read: this run's data is encrypted \(key id "k1"\) and AGENT_ENCRYPTION_KEYS is not set here/);
      // The task is retried (and fails again) without another line of ours or the SDK's stack trace.
      const attempt = async () => (await keyed.workflow.getHandle(legacy.workflowId).describe()).raw.pendingWorkflowTask?.attempt ?? 0;
      await vi.waitFor(async () => expect(await attempt()).toBeGreaterThanOrEqual(3), { timeout: 40_000, interval: 500 });
      expect(worker.stderr.match(/this worker was given a task it cannot read/g)).toHaveLength(1);
      expect(worker.stderr).not.toMatch(/Failed to process Workflow Activation|eyJ/);

      // A worker with the key says which queue it polls for them and runs both (the keyless one stopped: beside it,
      // the old run's tasks on the plain queue would still go to either).
      worker.kill('SIGTERM');
      expectExit(await worker.exited, 0);
      keyedWorker = spawn(['worker', '--scripted'], { AGENT_SCRIPT: script, AGENT_ENCRYPTION_KEYS: keys }, 110_000);
      await keyedWorker.waitForStderr(new RegExp(`runs encrypted with key id "k1": task queue "${taskQueue}@k1"`));
      for (const id of [waiting.stdout.trim(), legacy.workflowId]) {
        const result = await cli(['result', '--json', id], { AGENT_ENCRYPTION_KEYS: keys });
        expectExit(result, 0);
        expect(jsonOf<{ status: string }>(result).status).toBe('completed');
      }
    } finally {
      for (const w of [worker, keyedWorker]) w?.kill('SIGTERM');
      await Promise.all([worker.exited, keyedWorker?.exited]);
      await Promise.all([legacy.terminate('test over'), keyed.workflow.getHandle(waiting.stdout.trim()).terminate('test over')].map((p) => p.catch(() => undefined)));
    }
  });

  it('codec-server prints its address, decodes for the Web UI origin, refuses other origins, and exits 0 on SIGTERM', async () => {
    const keys = key('k1');
    const { spawn } = session();
    const server = spawn(['codec-server', '--port', '0'], { AGENT_ENCRYPTION_KEYS: keys });
    const [, url] = await server.waitForStdout(/Codec server: (http:\/\/127\.0\.0\.1:\d+)\n/);
    await server.waitForStderr(/Web UI origins allowed: http:\/\/localhost:8233, http:\/\/127\.0\.0\.1:8233;/);
    const plain = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"hello"').toString('base64') };
    const post = (path: string, body: unknown, origin = 'http://localhost:8233') =>
      fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify(body) });
    const encoded = await post('/encode', { payloads: [plain] });
    expect(encoded.status).toBe(200);
    expect(encoded.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    const decoded = await post('/decode', await encoded.json());
    expect(((await decoded.json()) as { payloads: unknown[] }).payloads).toEqual([plain]);
    expect((await post('/decode', { payloads: [] }, 'http://attacker.test')).status).toBe(403);
    server.kill('SIGTERM');
    const exit = await server.exited;
    expectExit(exit, 0);
    expect(exit.stdout).toBe(`Codec server: ${url}\n`);
  });
});
