// Worker processes for the crash and recovery tests: a real `node` child running a worker fixture, that the test
// kills with SIGKILL. Shared so every such test starts and kills its workers the same way.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Starts `node <fixture>` with `env` added to this process's environment; resolves once it prints `ready`. */
export async function startWorkerProcess(fixture: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fixture], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => b.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`worker exited with ${code} before it was ready:\n${stderr}`)));
  });
  return child;
}

/** SIGKILLs a worker process (if it still runs) and resolves once it is gone. */
export async function sigkill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}
