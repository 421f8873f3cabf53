import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Two projects. `unit`: files that need no Temporal server, no workflow bundle and no child process; they run
// in seconds. `integration`: the rest, with a dev server per test process and one bundle (test/global-setup.ts). A file is
// sorted by what it uses, so a new test lands in the right project without a list to keep: one that reaches
// for the server or spawns a process is an integration test.
const NEEDS_SERVER_OR_PROCESS =
  /\binject\(|helpers\/(harness|cli|worker-process|mcp|chromium|test-server)\.js|startDevServer|startCluster|node:child_process|Worker\.create|createAgentWorker|TestWorkflowEnvironment|bundleWorkflowCode/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(file);
    return entry.name.endsWith('.test.ts') ? [file] : [];
  });
}

// Integration files share their test process with the files before them (`isolate: false`: the modules they import,
// the Temporal runtime, and the SDK are loaded once per process, not once per file; vitest counted 215 s of set-up and
// imports over the files before, 64 s after). Except those that change what is global to a process: OpenTelemetry's
// tracer provider, installed once from the OTEL_* variables, is one; such a file gets a process of its own.
const CHANGES_PROCESS_STATE = /\bOTEL_|exportTracesTo|agentTracingFromEnv/;

const sources = testFiles('test').map((file) => ({ file, text: readFileSync(file, 'utf8') }));
const unitFiles = sources.filter(({ text }) => !NEEDS_SERVER_OR_PROCESS.test(text)).map(({ file }) => file);
const isolatedFiles = sources.filter(({ text }) => NEEDS_SERVER_OR_PROCESS.test(text) && CHANGES_PROCESS_STATE.test(text)).map(({ file }) => file);

// Every run in the order a clean clone runs in. Files that need a process of their own first: the slowest file of the
// suite is among them (test/package/packed.test.ts, about 45 s of npm pack and npm install, not of test code), and
// run last it was the run's tail, one core busy for 40 s while the other waited (455 s of vitest at a6cb6f4). Then
// the shared-process integration files, then the unit files; largest first within each. Vitest's own order on a warm
// run is by the last run's durations, longest first, and with files sharing their process that was slower: 693 s of
// vitest against 647 s in one warm clone on 2 cores (BENCHMARKS.md, "The test suite").
const PROJECT_ORDER = ['integration-isolated', 'integration', 'unit'];

class LargestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const size = new Map(files.map((f) => [f.moduleId, statSync(f.moduleId).size]));
    const rank = (f: TestSpecification) => PROJECT_ORDER.indexOf(f.project.name);
    return [...files].sort((a, b) => rank(a) - rank(b) || size.get(b.moduleId)! - size.get(a.moduleId)!);
  }
}

export default defineConfig({
  test: {
    pool: 'forks',
    sequence: { sequencer: LargestFirst },
    // Four files at a time, each test process on a dev server of its own (test/helpers/test-server.ts). With three, the
    // 2 cores were busy 1.6 of the time on average (705 s of CPU in 434 s): tests wait for timers, heartbeats and
    // servers. Four fill those waits: 332 s of vitest against 405 s with three, the machine idle, every test passing
    // (with five, on a machine busy with other work, they all passed too). A server per process: with one shared by all, in one of four clean runs it locked up (SQLITE_INTERRUPT after a cancelled
    // task-queue update, a modernc.org/sqlite bug our Go build of the CLI no longer links: docs/operations.md).
    maxWorkers: 4,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    projects: [
      // Unit files share their process too: they change nothing global (no mocks of modules, no fake timers left on),
      // and loading the modules once cut the project's CPU from 39 s to 17 s.
      { extends: true, test: { name: 'unit', include: unitFiles, isolate: false } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...unitFiles, ...isolatedFiles],
          isolate: false,
          globalSetup: ['test/global-setup.ts'],
          setupFiles: ['test/setup-runtime.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration-isolated',
          include: isolatedFiles,
          globalSetup: ['test/global-setup.ts'],
          setupFiles: ['test/setup-runtime.ts'],
        },
      },
    ],
  },
});
