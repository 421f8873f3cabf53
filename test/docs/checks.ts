// The checks that keep README.md and docs/*.md from going stale, as pure functions over page texts: every relative
// link resolves (files and #anchors), every AGENT_* / TEMPORAL_* variable and every --flag the pages name exists,
// and the marked code blocks the packed-package test compiles and runs. docs.test.ts runs them on the real pages;
// checks.test.ts shows each one failing on a broken page.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { withReference } from '../../devtools/cli-reference.js';

export interface Page {
  /** Relative to the repository root, with `/`: `README.md`, `docs/cli.md`. */
  path: string;
  text: string;
}

/** README.md and every docs/*.md. */
export function readPages(root: string): Page[] {
  const docs = readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs].map((p) => ({ path: p, text: readFileSync(path.join(root, p), 'utf8') }));
}

export interface CodeBlock {
  /** The info string after the opening fence: `ts runnable=own-worker.ts`. */
  info: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** The fenced code blocks of a page, in order. */
export function codeBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(```+)(.*)$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i].startsWith(open[1]); i++) body.push(lines[i]);
    blocks.push({ info: open[2].trim(), code: body.length ? `${body.join('\n')}\n` : '', line: start + 1 });
  }
  return blocks;
}

/** The page with its fenced code blocks blanked (line numbers kept): prose and inline code only. */
function prose(text: string): string {
  const lines = text.split('\n');
  let fence: string | undefined;
  return lines
    .map((line) => {
      const m = /^(```+)/.exec(line);
      if (fence) {
        if (m && line.startsWith(fence)) fence = undefined;
        return '';
      }
      if (m) {
        fence = m[1];
        return '';
      }
      return line;
    })
    .join('\n');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a page has: its headings' slugs (a repeated one gets -1, -2, ... as on GitHub). */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** Links outside code: `[text](target)` and `![alt](target)`, inline code spans left out. */
function links(text: string): { target: string; line: number }[] {
  const body = prose(text).replace(/`[^`\n]*`/g, (s) => ' '.repeat(s.length));
  return [...body.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => ({ target: m[1], line: lineOf(body, m.index) }));
}

/** Problems with relative links: a file that does not exist, an anchor its page does not have. */
export function checkLinks(pages: Page[], fileExists: (repoPath: string) => boolean, readPage: (repoPath: string) => string | undefined): string[] {
  const problems: string[] = [];
  for (const page of pages) {
    for (const { target, line } of links(page.text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [file, anchor] = target.split('#', 2) as [string, string | undefined];
      const resolved = file === '' ? page.path : path.posix.normalize(path.posix.join(path.posix.dirname(page.path), decodeURI(file)));
      const where = `${page.path}:${line}: link ${target}`;
      if (resolved.startsWith('..') || !fileExists(resolved)) {
        problems.push(`${where}: ${resolved} does not exist`);
        continue;
      }
      if (anchor === undefined) continue;
      const text = resolved === page.path ? page.text : readPage(resolved);
      if (text === undefined || !resolved.endsWith('.md')) problems.push(`${where}: #${anchor} points into ${resolved}, which is not a page`);
      else if (!anchorsOf(text).has(anchor)) problems.push(`${where}: ${resolved} has no heading with the anchor #${anchor}`);
    }
  }
  return problems;
}

const ENV_NAME = /\b((?:AGENT|TEMPORAL)_[A-Z0-9_]*)(\*)?/g;

/** Every AGENT_* / TEMPORAL_* name in `sources` (our code, and what reads TEMPORAL_* for us). */
export function knownNames(sources: string[]): Set<string> {
  return new Set(sources.flatMap((s) => [...s.matchAll(ENV_NAME)].map((m) => m[1])));
}

/** Problems: an AGENT_* or TEMPORAL_* name a page gives that no source has (`TEMPORAL_TLS_*`: some name with that
 * prefix). */
export function checkEnvNames(pages: Page[], known: Set<string>): string[] {
  const problems: string[] = [];
  for (const page of pages) {
    for (const m of page.text.matchAll(ENV_NAME)) {
      const [name, star] = [m[1], m[2]];
      const ok = star ? [...known].some((k) => k.startsWith(name)) : known.has(name);
      if (!ok) problems.push(`${page.path}:${lineOf(page.text, m.index)}: ${name}${star ?? ''} is in no source file (a renamed or removed variable?)`);
    }
  }
  return problems;
}

/** The flags of other programs the pages show (npm, node, temporal, the benches, the example servers): named here,
 * with their program, so that a flag of ours that was renamed is never mistaken for one of theirs. */
export const OTHER_PROGRAMS_FLAGS: Record<string, string> = {
  '--silent': 'npm run',
  '--build': 'npm run cluster',
  '--ui': 'npm run jaeger',
  '--engine-strict': 'npm ci',
  '--ignore-scripts': 'npm ci',
  '--save-exact': 'npm install',
  '--workspace': 'npm run',
  '--only': 'npm run bench',
  '--fleet': 'npm run bench',
  '--fleet-http': 'npm run bench',
  '--fleet-fast': 'npm run bench',
  '--repeats': 'npm run bench',
  '--max-old-space-size': 'node',
  '--namespace': 'temporal operator search-attribute create',
  '--workflow-id': 'temporal workflow stack',
  '--name': 'temporal operator search-attribute create',
  '--type': 'temporal operator search-attribute create',
  '--ui-codec-endpoint': 'temporal server start-dev',
  '--dynamic-config-value': 'temporal server start-dev',
  '--deployment-name': 'temporal worker deployment',
  '--percentage': 'temporal worker deployment set-ramping-version',
  '--query': 'temporal workflow count',
  '--http': 'examples/mcp/notes-server.mjs',
};

/** A command line of ours in a code line or an inline code span: `durable-agent <command> ...`,
 * `npm run [--silent] agent -- <command> ...`, or a span that starts with a command's name. */
function commandLines(fragment: string, commands: ReadonlyMap<string, ReadonlySet<string>>, inline: boolean): { command: string; args: string }[] {
  const found: { command: string; args: string }[] = [];
  const re = /(?:durable-agent|npm run (?:--silent )?agent --)\s+([a-z][a-z-]*)([^|;&#<>`]*)/g;
  for (const m of fragment.matchAll(re)) if (commands.has(m[1])) found.push({ command: m[1], args: m[2] });
  if (inline && found.length === 0) {
    const m = /^([a-z][a-z-]*)(\s[^|;&#<>]*)?$/.exec(fragment.trim());
    if (m && commands.has(m[1])) found.push({ command: m[1], args: m[2] ?? '' });
  }
  return found;
}

const FLAG = /(?<![\w-])--([a-z][a-z0-9-]*)/g;

/** Problems with `--flags`: in a command line of ours, a flag that command does not take; anywhere else, a flag
 * that no command takes and no other program of OTHER_PROGRAMS_FLAGS has. A page may show a wrong flag on purpose
 * (a typo and the CLI's answer) by saying so: `<!-- not a flag: --max-step -->`. */
export function checkFlags(pages: Page[], commands: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const all = new Set([...commands.values()].flatMap((s) => [...s]));
  const problems: string[] = [];
  for (const page of pages) {
    const onPurpose = new Set([...page.text.matchAll(/<!-- not a flag: --([a-z][a-z0-9-]*)/g)].map((m) => m[1]));
    const known = (flag: string) => all.has(flag) || `--${flag}` in OTHER_PROGRAMS_FLAGS || onPurpose.has(flag);
    const check = (fragment: string, line: number, inline: boolean) => {
      for (const { command, args } of commandLines(fragment, commands, inline)) {
        for (const f of args.matchAll(FLAG)) {
          if (!commands.get(command)!.has(f[1]) && !onPurpose.has(f[1])) problems.push(`${page.path}:${line}: ${command} has no option --${f[1]}`);
        }
      }
      for (const f of fragment.matchAll(FLAG)) {
        if (!known(f[1])) {
          problems.push(`${page.path}:${line}: --${f[1]} is an option of no command (a renamed or removed flag?)`);
        }
      }
    };
    const lines = page.text.split('\n');
    const proseLines = prose(page.text).split('\n');
    lines.forEach((line, i) => {
      if (proseLines[i] === '' && line !== '') check(line, i + 1, false); // a line inside a code block
      else for (const span of proseLines[i].matchAll(/`([^`\n]+)`/g)) check(span[1], i + 1, true);
    });
    // Prose outside inline code (`--max-steps` written bare).
    proseLines.forEach((line, i) => {
      for (const f of line.replace(/`[^`\n]*`/g, '').replace(/<!--.*?-->/g, '').matchAll(FLAG)) {
        if (!known(f[1])) {
          problems.push(`${page.path}:${i + 1}: --${f[1]} is an option of no command (a renamed or removed flag?)`);
        }
      }
    });
  }
  return [...new Set(problems)];
}

export interface MarkedExample {
  /** The file it is written to in the packed project's src/: `own-worker.ts`. */
  file: string;
  /** `runnable`: compiled and run (it must exit 0); `compiles`: compiled only (imported by others, or run by a test
   * of its own because it runs until stopped). */
  kind: 'runnable' | 'compiles';
  code: string;
  where: string;
}

/** The code blocks marked ```ts runnable=FILE or ```ts compiles=FILE, across the pages, in page order. */
export function markedExamples(pages: Page[]): MarkedExample[] {
  const examples: MarkedExample[] = [];
  for (const page of pages) {
    for (const block of codeBlocks(page.text)) {
      const m = /^ts\s+(runnable|compiles)=(\S+)$/.exec(block.info);
      if (m) examples.push({ kind: m[1] as MarkedExample['kind'], file: m[2], code: block.code, where: `${page.path}:${block.line}` });
    }
  }
  return examples;
}

/** Where docs/cli.md differs from what the generator writes from the definitions: the first differing line, or
 * undefined when it is up to date. */
export function staleReference(page: string, reference: string): string | undefined {
  const expected = withReference(page, reference);
  if (expected === page) return undefined;
  const [have, want] = [page.split('\n'), expected.split('\n')];
  const i = have.findIndex((line, n) => line !== want[n]);
  const line = i === -1 ? have.length : i;
  return `docs/cli.md:${line + 1}: the page has "${have[line] ?? ''}", the definitions "${want[line] ?? ''}"; run npm run docs:cli`;
}
