// Chromium for the browser tests, found the way `.ci/run` looks for it before installing it: `chromium`, else
// `chromium-browser`, on PATH. Null where there is none: the browser tests skip themselves, saying so.
import { execFileSync } from 'node:child_process';

export function findChromium(): string | null {
  try {
    const found = execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' });
    return found.trim() || null;
  } catch {
    return null;
  }
}

export const NO_CHROMIUM =
  'neither chromium nor chromium-browser is on PATH, so this browser test is skipped (install it: apt-get install -y chromium)';
