// The ids of a task batch's runs: derived from the batch's name and each task, so a list started twice names the same
// runs (and starts none twice).
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { TypedSearchAttributes } from '@temporalio/common';
import { checkBatchName, InvalidTaskBatchError, listTaskBatch, startTasks, taskWorkflowIds } from '../../src/client/task-file.js';
import { defaultSettings } from '../../src/core/settings.js';

const settings = defaultSettings({ tools: [] });

describe('taskWorkflowIds', () => {
  it('is the same for the same batch and tasks, readable, and different for another batch or another task', () => {
    const tasks = [{ task: 'Classify issue #12', settings }, { task: 'Classify issue #13', settings }];
    const ids = taskWorkflowIds('triage', tasks);
    expect(taskWorkflowIds('triage', tasks)).toEqual(ids);
    expect(ids[0]).toMatch(/^triage-classify-issue-12-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(2);
    expect(taskWorkflowIds('triage-2', tasks)[0]).not.toBe(ids[0]);
  });

  it('keeps a line its id when lines are inserted before it (an id comes from the line, not its position)', () => {
    const line = { task: 'Summarise chapter 3', settings, key: '{"task":"Summarise chapter 3"}' };
    const [alone] = taskWorkflowIds('book', [line]);
    const later = taskWorkflowIds('book', [{ task: 'Preface', settings, key: '{"task":"Preface"}' }, line]);
    expect(later[1]).toBe(alone);
  });

  it('gives the second of two identical tasks its own id (-2), and keeps an id a task names itself', () => {
    const same = { task: 'Ping the status page', settings };
    const ids = taskWorkflowIds('pings', [same, same, { ...same, workflowId: 'my-own-id' }]);
    expect(ids[1]).toBe(`${ids[0]}-2`);
    expect(ids[2]).toBe('my-own-id');
  });
});

describe('checkBatchName', () => {
  it('refuses a name that cannot go into a workflow id or a visibility query, naming what is allowed', () => {
    expect(() => checkBatchName('issues-2026.12')).not.toThrow();
    for (const bad of ["it's", 'with space', '', '-leading', 'x'.repeat(81)]) {
      expect(() => checkBatchName(bad)).toThrow(/is not usable: letters, digits and \. _ @ -/);
    }
  });
});

describe('startTasks', () => {
  it('refuses two tasks with the same workflowId before it starts any (the second would attach to the first\'s run and never run)', async () => {
    // A client that records whatever is asked of it: nothing must be.
    const asked: string[] = [];
    const client = new Proxy({}, { get: (_, key) => (asked.push(String(key)), undefined) }) as Client;
    const tasks = [
      { task: 'Classify issue #1', settings, workflowId: 'classify' },
      { task: 'Classify issue #2', settings },
      { task: 'Classify issue #3', settings, workflowId: 'classify' },
    ];
    const refused = startTasks(client, { batch: 'triage', tasks });
    await expect(refused).rejects.toBeInstanceOf(InvalidTaskBatchError);
    await expect(refused).rejects.toThrow('tasks 1 and 3 have the same workflowId "classify": each run needs its own id');
    expect(asked).toEqual([]);
  });
});

describe('listTaskBatch', () => {
  it('lists every run of a batch of more than 10,000 (result --batch reported "10000 of 10000 completed" for a bigger one)', async () => {
    // A client with one page of 10,001 listed runs, each its id's current run: enough to pass the old cap.
    const RUNS = 10_001;
    const info = (i: number) => ({
      workflowId: `big-${i}`,
      runId: `run-${i}`,
      status: { name: 'COMPLETED' },
      startTime: new Date(0),
      searchAttributes: {},
      typedSearchAttributes: new TypedSearchAttributes(),
    });
    const client = {
      workflow: {
        async *list() {
          for (let i = 0; i < RUNS; i++) yield info(i);
        },
        getHandle: (id: string) => ({ describe: async () => ({ runId: id.replace('big-', 'run-') }) }),
      },
    } as unknown as Client;
    const runs = await listTaskBatch(client, 'big');
    expect(runs).toHaveLength(RUNS);
    expect(runs.every((r) => r.current)).toBe(true);
  });
});
