// Import cycles among the files of a folder (type-only imports included: a cycle of types is a cycle of design).
// `node scripts/import-cycles.mjs [src]` prints them and exits 1 when there is one; test/layout.test.ts runs it on src/.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
const walk = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : /\.(ts|cjs|mts)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path.join(d, e.name)] : []));
export function importCycles(root) {
const files = walk(root);
const graph = new Map();
for (const f of files) {
  const text = readFileSync(f, 'utf8');
  const deps = new Set();
  for (const m of text.matchAll(/(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|require\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) {
    const spec = m[1] ?? m[2] ?? m[3];
    let target = path.normalize(path.join(path.dirname(f), spec)).replace(/\.js$/, '.ts');
    if (!existsSync(target) && existsSync(target.replace(/\.ts$/, '.cjs'))) target = target.replace(/\.ts$/, '.cjs');
    if (files.includes(target)) deps.add(target);
  }
  graph.set(f, [...deps]);
}
// Tarjan
let index = 0; const idx = new Map(), low = new Map(), stack = [], on = new Set(), sccs = [];
function strong(v) {
  idx.set(v, index); low.set(v, index); index++; stack.push(v); on.add(v);
  for (const w of graph.get(v)) {
    if (!idx.has(w)) { strong(w); low.set(v, Math.min(low.get(v), low.get(w))); }
    else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) { const c = []; let w; do { w = stack.pop(); on.delete(w); c.push(w); } while (w !== v); if (c.length > 1 || graph.get(v).includes(v)) sccs.push(c); }
}
for (const v of graph.keys()) if (!idx.has(v)) strong(v);
return sccs.map((c) => c.sort());
}

if (process.argv[1] && import.meta.url === new URL(`file://${path.resolve(process.argv[1])}`).href) {
  const cycles = importCycles(process.argv[2] ?? 'src');
  for (const c of cycles) console.log(`cycle of ${c.length}: ${c.join(', ')}`);
  console.log(`${cycles.length} import cycles`);
  process.exitCode = cycles.length ? 1 : 0;
}
