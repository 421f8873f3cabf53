// DURABLE_AGENT_PROFILE=1: a command prints `profile <phase> <ms>` lines on stderr, the time since the process
// started at which it reached each phase (bench/concurrent-start.mjs reads them). Off, it costs one lookup.
import { performance } from 'node:perf_hooks';

const on = process.env.DURABLE_AGENT_PROFILE === '1';

export function profileMark(phase: string): void {
  if (on) process.stderr.write(`profile ${phase} ${Math.round(performance.now())} ms\n`);
}
