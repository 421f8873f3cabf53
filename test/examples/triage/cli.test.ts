// The command of docs/triage-example.md, as a user runs it: the built CLI loads examples/triage/durable-agent.config.js; without
// ANTHROPIC_API_KEY it runs on the config's scripted model (and says so); `--approve add_comment` makes the
// comment wait for `deny` from another CLI process.
import { afterEach, describe, expect, it } from 'vitest';
import { expectExit, jsonOf, useCli } from '../../helpers/cli.js';
import { freshStore, type StoreFixture } from './fixture.js';

const CONFIG = 'examples/triage/durable-agent.config.js';
const { session } = useCli();

let store: StoreFixture;
afterEach(() => store?.remove());

describe('the triage example from the CLI', () => {
  it('run --config examples/triage/durable-agent.config.js "Triage issue #39", without a key: the scripted model triages #39', async () => {
    store = freshStore();
    const { cli } = session({ TRIAGE_STORE: store.path });
    const exit = await cli(['run', '--config', CONFIG, 'Triage issue #39']);
    expectExit(exit, 0);
    expect(exit.stderr).toMatch(/^config examples\/triage\/durable-agent\.config\.js: tools search_issues, get_issue, add_label, add_comment$/m);
    expect(exit.stderr).toContain("ANTHROPIC_API_KEY is not set: running on the offline SCRIPTED model with the config file's scriptedModel, not on Claude.");
    expect(exit.stdout).toMatch(
      /^Issue #39 \("Login times out behind our corporate proxy"\) is a duplicate of #21 \("Login request times out when an HTTP proxy is configured"\)\. I labelled #39 "duplicate"\. I commented "Duplicate of #21" on #39\.\n\n— completed on end_turn · 5 model calls · 5 tool calls · /,
    );
    expect(store.issue(39).labels).toEqual(['duplicate']);
    expect(store.issue(39).comments.map((c) => c.body)).toEqual(['Duplicate of #21']);
  });

  it('without a key and without a config that has a script, run still refuses (exit 2) and says how to fix it', async () => {
    const { cli } = session();
    const exit = await cli(['run', 'Triage issue #39']);
    expectExit(exit, 2);
    expect(exit.stderr).toMatch(/ANTHROPIC_API_KEY is not set\. Either export ANTHROPIC_API_KEY=<your key> to call Claude, or add --scripted/);
  });

  it('--approve add_comment: the run waits; `deny` from another process; the comment is not posted and the answer says why', async () => {
    store = freshStore();
    const { cli, spawn } = session({ TRIAGE_STORE: store.path });
    const run = spawn(['run', '--config', CONFIG, '--approve', 'add_comment', '--json', 'Triage issue #39']);
    const [, workflowId] = await run.waitForStderr(/started run (\S+)/);
    const status = async () => jsonOf<{ live: boolean; view?: { status: string } }>(await cli(['status', workflowId, '--json'])).view?.status;
    await expect.poll(status, { timeout: 30_000, interval: 300 }).toBe('awaiting_approval');
    expectExit(await cli(['deny', workflowId, '--reason', 'not on customer issues yet']), 0);
    const exit = await run.exited;
    expectExit(exit, 0);
    const result = jsonOf<{ status: string; text: string }>(exit);
    expect(result.status).toBe('completed');
    expect(result.text).toContain(
      'The comment "Duplicate of #21" was not posted: A human reviewer denied this call to add_comment: not on customer issues yet.',
    );
    expect(store.issue(39)).toMatchObject({ labels: ['duplicate'], comments: [] });
  });
});
