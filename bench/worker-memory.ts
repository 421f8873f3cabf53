// The memory of a worker process the bench started: its resident set sampled every 100 ms (VmRSS) while it runs,
// and its peak (VmHWM, the kernel's high-water mark, which no sample can miss) read just before it is stopped.
// Also the CPU time a process has used (cpuMs), read around a fleet by the bench.
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface WorkerMemory {
  /** Reads the peak, then stops the process (SIGTERM: the worker shuts down; SIGKILL after 15 s); once. */
  stop(): Promise<{ peakRssMb: number; sampledPeakRssMb: number; transcriptStats?: Record<string, number> }>;
}

/** CPU time (user + system) a process has used, in ms, from /proc/<pid>/stat; 0 once it is gone. */
export function cpuMs(pid: number): number {
  try {
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are 14 and 15.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** CPU time (ms) of each of a process's threads, summed by thread name (/proc/<pid>/task/<tid>/stat): `main`, each of
 * Node's worker threads (the workflow thread among them) as `node <tid>`, Temporal's core threads as
 * `tokio-runtime-w`, and so on; an empty object once the process is gone. */
export function threadCpuMs(pid: number): Record<string, number> {
  const byName: Record<string, number> = {};
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      // Node names its worker threads (the workflow thread among them) `node` too: each is told apart by its id.
      const name = tid === String(pid) ? 'main' : comm === 'node' ? `node ${tid}` : comm;
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      byName[name] = (byName[name] ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
    }
  } catch {
    // the process or one of its threads ended while it was read
  }
  return byName;
}

/** Each thread's CPU between two readings of threadCpuMs, as a share of one core over `wallMs`: one near 100 % bounds
 * the process. */
export function threadShares(before: Record<string, number>, after: Record<string, number>, wallMs: number): string {
  return Object.entries(after)
    .map(([name, ms]) => [name, ms - (before[name] ?? 0)] as const)
    .filter(([, ms]) => ms > 0)
    .map(([name, ms]) => `${name} ${Math.round((100 * ms) / wallMs)} %`)
    .join(', ');
}

/** `getconf CLK_TCK`: 100 on Linux. */
const CLOCK_TICKS_PER_SECOND = 100;

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
