// `complete-tool <token>`: gives a tool call that its tool ended with `context.completeLater()` its result, from
// outside (a CI job's last step, a person, a pipeline). Needs the Temporal server only: no worker.
import { readFileSync } from 'node:fs';
import { expectPositionals, UsageError, type FlagSpec } from '../../core/args.js';
import { defineCommand } from '../command.js';
import { printText } from '../output.js';
import { withTemporal } from '../temporal.js';

const USAGE = 'complete-tool <token> (--result TEXT | --result-file FILE | --error TEXT)';

const FLAGS = {
  result: { type: 'string', value: 'TEXT', help: 'the tool_result the model gets' },
  'result-file': { type: 'string', value: 'FILE', help: 'read the result from FILE (- for standard input)' },
  error: { type: 'string', value: 'TEXT', help: 'an is_error result instead: what went wrong, for the model to act on' },
} satisfies Record<string, FlagSpec>;

export const completeTool = defineCommand({
  usage: USAGE,
  description: `Complete a tool call that waits for its result from outside: the token is the one its tool handed out
(\`context.completionToken\`), and the run goes on with the result as the call's tool_result. Works while no
worker runs. A token that is not one, already used, or of a run that has ended is exit 2.`,
  flags: FLAGS,
  examples: [
    'complete-tool dact1.eyJ3b3Jr... --result "build 4711 passed: 1,204 tests"',
    'complete-tool "$TOKEN" --result-file build-log.txt',
    'complete-tool "$TOKEN" --error "the deployment was rolled back: health check failed"',
  ],
  run: async ({ flags, positionals }) => {
    const [token] = expectPositionals(positionals, ['token'], USAGE);
    const given = (['result', 'result-file', 'error'] as const).filter((f) => flags[f] !== undefined);
    if (given.length !== 1) {
      throw new UsageError(`${given.length === 0 ? 'give the result' : 'give only one of them'}: --result TEXT, --result-file FILE or --error TEXT\nusage: ${USAGE}`);
    }
    const outcome =
      flags.error !== undefined
        ? { content: flags.error, isError: true }
        : { content: flags.result ?? readResultFile(flags['result-file']!), isError: false };
    return withTemporal(async (temporal) => {
      const { completeToolCall } = await import('../../client/complete-tool.js'); // Temporal's client, on use
      const call = await completeToolCall(temporal.client, token, outcome);
      printText(`completed tool call ${call.toolUseId} of ${call.workflowId}${outcome.isError ? ' (as an error)' : ''}\n`);
      return 0;
    });
  },
});

function readResultFile(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new UsageError(`--result-file ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}
