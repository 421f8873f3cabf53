// How to write a command line for the person reading a message: `durable-agent <args>` as installed, or
// `npm run agent -- <args>` when this CLI was started by that script in this repository.
export function commandLine(args: string): string {
  return `${process.env.npm_lifecycle_event === 'agent' ? 'npm run agent --' : 'durable-agent'} ${args}`;
}
