// The memory of a worker process the bench started: its resident set sampled every 100 ms (VmRSS) while it runs,
// and its peak (VmHWM, the kernel's high-water mark, which no sample can miss) read just before it is stopped.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface WorkerMemory {
  /** Reads the peak, then stops the process (SIGTERM: the worker shuts down; SIGKILL after 15 s); once. */
  stop(): Promise<{ peakRssMb: number; sampledPeakRssMb: number; transcriptStats?: Record<string, number> }>;
}

/** A field of /proc/<pid>/status in MB (the kernel writes kB), or 0 once the process is gone. */
function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const kb = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

export function workerMemory(child: ChildProcess): WorkerMemory {
  const pid = child.pid!;
  let sampledPeak = statusMb(pid, 'VmRSS');
  const timer = setInterval(() => (sampledPeak = Math.max(sampledPeak, statusMb(pid, 'VmRSS'))), 100);
  let stopped: ReturnType<WorkerMemory['stop']> | undefined;
  // An agent worker prints how its model calls read their transcripts as it stops.
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  return {
    stop: () =>
      (stopped ??= (async () => {
        clearInterval(timer);
        const figures = { peakRssMb: statusMb(pid, 'VmHWM'), sampledPeakRssMb: Math.max(sampledPeak, statusMb(pid, 'VmRSS')) };
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
          await exited;
          clearTimeout(kill);
        }
        const stats = out.match(/^transcript-stats (.+)$/m)?.[1];
        return stats ? { ...figures, transcriptStats: JSON.parse(stats) as Record<string, number> } : figures;
      })()),
  };
}
