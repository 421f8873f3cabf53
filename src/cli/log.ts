// Everything that is not the command's output goes to stderr, so stdout can be piped.
export function logLine(message: string): void {
  process.stderr.write(`${message}\n`);
}
