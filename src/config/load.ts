// Loading a tool-module config file: `--config FILE`, else `durable-agent.config.js` / `.mjs` in the working
// directory, imported so that a file that hangs, exits or throws is named with what went wrong; its default export
// is then checked (check.ts). Every way the file can be wrong is a ConfigError whose one-line message names the
// file, what is wrong and how to fix it (the CLI turns it into exit code 2).
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseDuration } from '../core/duration.js';
import { checkConfig, ConfigError } from './check.js';
import type { AgentConfig } from './types.js';

/** Looked for, in this order, in the working directory when no `--config` is given. */
export const CONFIG_FILE_NAMES = ['durable-agent.config.js', 'durable-agent.config.mjs'] as const;

export interface LoadedConfig {
  /** The absolute path of the file read, or undefined when there was none (then `config` is empty). */
  file?: string;
  config: AgentConfig;
}

/** The config named by `file` (relative to `cwd`), else the default file in `cwd` when present, else `{}`. */
export async function loadConfig(options: { file?: string; cwd?: string } = {}): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd();
  const file = options.file !== undefined ? explicitFile(options.file, cwd) : defaultFile(cwd);
  if (!file) return { config: {} };
  const shown = path.relative(cwd, file) || file;
  const module = await importConfig(file, shown, cwd);
  if (!('default' in module) || module.default === undefined) {
    throw new ConfigError(
      `${shown} has no default export: end it with \`export default defineConfig({ tools: [...] })\` ` +
        "(defineConfig from 'durable-agent'; a plain object works too)",
    );
  }
  return { file, config: checkConfig(module.default, shown) };
}

function explicitFile(given: string, cwd: string): string {
  const file = path.resolve(cwd, given);
  if (!existsSync(file)) {
    throw new ConfigError(`--config ${given}: no such file (give the path of an ES module whose default export is defineConfig({ tools }))`);
  }
  if (!statSync(file).isFile()) throw new ConfigError(`--config ${given}: not a file`);
  return file;
}

function defaultFile(cwd: string): string | undefined {
  const present = CONFIG_FILE_NAMES.map((name) => path.join(cwd, name)).filter((file) => existsSync(file));
  if (present.length > 1) {
    throw new ConfigError(
      `both ${CONFIG_FILE_NAMES.join(' and ')} are in ${cwd}: keep one, or choose with --config FILE`,
    );
  }
  return present[0];
}

/** How long loading a config file may take (its top-level code and awaits) before it is given up as hung:
 * AGENT_CONFIG_LOAD_TIMEOUT (a duration), else 30 s. */
export function configLoadTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.AGENT_CONFIG_LOAD_TIMEOUT;
  if (!given) return DEFAULT_CONFIG_LOAD_TIMEOUT_MS;
  try {
    return parseDuration(given);
  } catch (err) {
    throw new ConfigError(`AGENT_CONFIG_LOAD_TIMEOUT: ${(err as Error).message}`);
  }
}
const DEFAULT_CONFIG_LOAD_TIMEOUT_MS = 30_000;

/** Thrown into a config file that calls process.exit while it loads: it stops the file's code there. */
class ExitDuringLoad extends Error {
  override name = 'ExitDuringLoad';
}

/** Imports the file. Two ways it could end the process unexplained are caught: a top-level await that never settles
 * (Node would exit 13 without a word once nothing else is pending: a timer keeps it alive, then the timeout names
 * the file) and a call to process.exit (which would end the command with the file's exit code, 0 included). */
async function importConfig(file: string, shown: string, cwd: string): Promise<Record<string, unknown>> {
  const timeoutMs = configLoadTimeoutMs();
  const realExit = process.exit;
  let exitCode: string | number | null | undefined;
  let exited = false;
  process.exit = ((code?: string | number | null) => {
    exited = true;
    exitCode = code;
    throw new ExitDuringLoad(`process.exit(${code ?? ''}) called while ${shown} loads`);
  }) as typeof process.exit;
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ConfigError(
            `${shown} did not finish loading within ${formatSeconds(timeoutMs)}: a top-level await in it never settles ` +
              '(or its top-level code takes that long); fix it, or raise AGENT_CONFIG_LOAD_TIMEOUT',
          ),
        ),
      timeoutMs,
    );
  });
  try {
    const module = (await Promise.race([import(pathToFileURL(file).href), hung])) as Record<string, unknown>;
    if (exited) throw new ExitDuringLoad('caught');
    return module;
  } catch (err) {
    if (exited) {
      throw new ConfigError(
        `${shown} called process.exit(${exitCode ?? ''}) while loading: a config file must export its config ` +
          '(export default defineConfig({ ... })), not end the process; remove the call',
      );
    }
    if (err instanceof ConfigError) throw err;
    const error = err as NodeJS.ErrnoException;
    // Node's SyntaxError has no position (and a bundler-run loader, as in tests, words it its own way):
    // `node --check` prints `<file>:<line>` and the error for a syntax error in the file itself.
    const syntax = syntaxErrorIn(file);
    if (syntax) throw new ConfigError(`syntax error in ${shown} at line ${syntax.line}: ${syntax.message}`);
    if (error instanceof SyntaxError) {
      // In a module it imports, or a named import it lacks: the message says which.
      throw new ConfigError(`cannot load ${shown}: ${firstLine(error.message)}`, { cause: err });
    }
    if (error.code === 'ERR_MODULE_NOT_FOUND' && /'durable-agent'/.test(error.message)) {
      throw new ConfigError(
        `cannot load ${shown}: the package 'durable-agent' is not installed where the config file is. It is not on ` +
          'the npm registry: install it in that project from its tarball (`npm pack` in its repository, then ' +
          '`npm install --save-exact <path>/durable-agent-<version>.tgz`) or from git (README, "Using it as a library")',
      );
    }
    if (error.code === 'ERR_UNKNOWN_FILE_EXTENSION' && /\.[cm]?tsx?$/.test(file)) {
      throw new ConfigError(
        `cannot load ${shown}: Node does not run TypeScript by itself (${firstLine(error.message)}). Write the config ` +
          'as .mjs or .js (compile it first), or run the CLI under a TypeScript loader: ' +
          '`node --import tsx node_modules/durable-agent/bin/durable-agent.js ...`',
      );
    }
    // A module the config imports threw at its top level (a key it reads is not set): name that module and line,
    // not only the config, and keep what it threw (its stack: the throw site) as the cause.
    const thrower = throwSite(err, file, cwd);
    throw new ConfigError(`cannot load ${shown}: ${thrower ? `${thrower} threw while loading: ` : ''}${firstLine(error.message ?? String(err))}`, { cause: err });
  } finally {
    clearTimeout(timer);
    process.exit = realExit;
  }
}

/** Where `err` was thrown, as `<file>:<line>`, when that is a module other than the config `file`: the first frame
 * of its stack in a file (Node's own frames skipped), relative to `cwd` when under it, else absolute. */
function throwSite(err: unknown, file: string, cwd: string): string | undefined {
  const stack = err instanceof Error && typeof err.stack === 'string' ? err.stack : '';
  for (const line of stack.split('\n').slice(1)) {
    const frame = /^\s+at (?:.*\()?(file:\/\/\/[^)]+?|\/[^)]+?):(\d+):\d+\)?\s*$/.exec(line);
    if (!frame) continue;
    let where: string;
    try {
      where = frame[1].startsWith('file:') ? fileURLToPath(frame[1]) : frame[1];
    } catch {
      continue;
    }
    if (path.resolve(where) === path.resolve(file)) return undefined;
    const relative = path.relative(cwd, where);
    return `${relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : where}:${frame[2]}`;
  }
  return undefined;
}

const formatSeconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

function syntaxErrorIn(file: string): { line: string; message: string } | undefined {
  try {
    execFileSync(process.execPath, ['--check', file], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
    return undefined;
  } catch (err) {
    const stderr = String((err as { stderr?: Buffer }).stderr ?? '');
    const line = stderr.match(new RegExp(`${escapeRegExp(file)}:(\\d+)`))?.[1];
    const message = stderr.match(/^SyntaxError: (.*)$/m)?.[1];
    return line && message ? { line, message } : undefined;
  }
}

const firstLine = (text: string) => text.split('\n')[0];
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
