import { describe, expect, it } from 'vitest';
import { runEndEventType, webhookEvent, webhookEventId, webhookUrlProblem } from '../../src/core/webhooks.js';
import { settingsProblem } from '../../src/core/settings-check.js';
import { defaultSettings } from '../../src/core/settings.js';

describe('webhook event ids', () => {
  it('are the same for the same run and event, whenever they are computed', () => {
    expect(webhookEventId('wf', 'run', 'run.completed')).toBe(webhookEventId('wf', 'run', 'run.completed'));
    expect(webhookEvent('run.completed', { workflowId: 'wf', runId: 'run' }, {}, 1).id).toBe(webhookEvent('run.completed', { workflowId: 'wf', runId: 'run' }, {}, 2).id);
  });

  it('differ between events, runs and approvals', () => {
    const ids = new Set([
      webhookEventId('wf', 'run', 'run.completed'),
      webhookEventId('wf', 'run', 'run.stopped'),
      webhookEventId('wf', 'run2', 'run.completed'),
      webhookEventId('wf2', 'run', 'run.completed'),
      webhookEventId('wf', 'run', 'approval.needed', 'toolu_1'),
      webhookEventId('wf', 'run', 'approval.needed', 'toolu_2'),
    ]);
    expect(ids.size).toBe(6);
  });

  it('maps the statuses the workflow ends with to run events', () => {
    expect(['completed', 'stopped', 'failed', 'cancelled', 'terminated'].map(runEndEventType)).toEqual([
      'run.completed',
      'run.stopped',
      'run.failed',
      'run.cancelled',
      null,
    ]);
  });
});

describe('webhook URLs', () => {
  it('accepts http and https URLs', () => {
    expect(webhookUrlProblem('https://hooks.example.com/agent?x=1')).toBeNull();
    expect(webhookUrlProblem('http://127.0.0.1:9000/hook')).toBeNull();
  });

  it('refuses other schemes, spaces and credentials in the URL, naming the problem', () => {
    expect(webhookUrlProblem('ftp://example.com')).toMatch(/not an http:\/\/ or https:\/\/ URL/);
    expect(webhookUrlProblem('https://exa mple.com')).toMatch(/not an http/);
    expect(webhookUrlProblem('https://user:pw@example.com/')).toMatch(/credentials/);
    expect(webhookUrlProblem('http://%zz/hook')).toMatch(/is not a URL that parses/);
  });

  it('is part of the settings check', () => {
    expect(settingsProblem(defaultSettings({ webhooks: ['nope'] }))).toMatchObject({ field: 'webhooks' });
    expect(settingsProblem(defaultSettings({ webhooks: ['https://example.com/h'] }))).toBeNull();
  });
});
