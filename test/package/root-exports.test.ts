// The package's public API stays narrow (issue 40, item 7): the root exports at most 30 runtime values, exactly the
// ones the README's API paragraph names (a new one is a decision written down there, not a line slipped into
// src/index.ts), and every type a public function returns is exported: from the same entry point as the function,
// and the types those types are made of from one entry point or another.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAX_ROOT_VALUES = 30;

/** The package.json "exports" subpaths and the source file of each (`./dist/x.js` → `src/x.ts`). */
function entryPoints(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { default: string }> };
  return new Map(
    Object.entries(pkg.exports).map(([subpath, { default: js }]) => [subpath, path.join(ROOT, js.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'))]),
  );
}

/** The names the README says the root exports: the backticked names between "exported by the package" and "with their". */
function readmeRootNames(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('Everything these pages name'));
  const list = section.slice(section.indexOf('exported by the package'), section.indexOf('with their'));
  return [...list.matchAll(/`(\w+)`/g)].map((m) => m[1]);
}

describe('the root export', () => {
  it(`has at most ${MAX_ROOT_VALUES} runtime values, exactly those the README's API paragraph names`, () => {
    const values = Object.keys(root).sort();
    expect(values.length).toBeLessThanOrEqual(MAX_ROOT_VALUES);
    expect(values).toEqual(readmeRootNames().sort());
  });

  it('every subpath of package.json has its entry file, and src/ holds at most 5 files at its root', () => {
    const entries = entryPoints();
    expect([...entries.keys()].sort()).toEqual(['.', './background', './encryption', './mcp', './observability', './testing', './webhooks', './worker', './workflow']);
    for (const file of entries.values()) expect(() => readFileSync(file)).not.toThrow();
    const rootFiles = ts.sys.readDirectory(path.join(ROOT, 'src'), ['.ts'], undefined, undefined, 1);
    expect(rootFiles.length).toBeLessThanOrEqual(5);
  });
});

/** Each public function's (and public class's) return types declared in src/ that are not exported where they must
 * be: a function's return type (through a Promise, a union, an array) from the function's own entry point; the types
 * of what that value holds (its properties, its methods' results) from one entry point or another. Deeper than that
 * is the run's own state and the SDK's shapes, which stay internal. Answers `<entry>: <function> returns <type>`. */
function unexportedReturnTypes(): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.build.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const entries = entryPoints();
  const program = ts.createProgram([...entries.values()], { ...config.options, noEmit: true, incremental: false });
  const checker = program.getTypeChecker();
  const src = path.join(ROOT, 'src') + path.sep;
  const declaredInSrc = (symbol: ts.Symbol | undefined) => Boolean(symbol?.declarations?.some((d) => path.resolve(d.getSourceFile().fileName).startsWith(src)));
  const target = (s: ts.Symbol) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  const ANONYMOUS = ts.SymbolFlags.TypeLiteral | ts.SymbolFlags.ObjectLiteral | ts.SymbolFlags.Function | ts.SymbolFlags.Method;

  const exportsOf = new Map<string, Set<ts.Symbol>>();
  // Classes exported as types only (the worker's stores): a user holds one, and never constructs it.
  const typeOnly = new Set<ts.Symbol>();
  for (const [subpath, file] of entries) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
    const symbols = checker.getExportsOfModule(module);
    for (const s of symbols) if (s.declarations?.every((d) => ts.isTypeOnlyImportOrExportDeclaration(d))) typeOnly.add(target(s));
    exportsOf.set(subpath, new Set(symbols.map(target)));
  }
  const anywhere = new Set([...exportsOf.values()].flatMap((s) => [...s]));

  const problems = new Set<string>();
  for (const [subpath, exported] of exportsOf) {
    // depth 0: what a function returns, which its entry point exports; depth 1: what that holds, exported somewhere.
    const visit = (type: ts.Type, where: string, depth: 0 | 1, seen = new Set<ts.Type>()): void => {
      if (seen.has(type)) return;
      seen.add(type);
      const named = type.aliasSymbol ?? (type.flags & ts.TypeFlags.Object ? type.getSymbol() : undefined);
      const ours = declaredInSrc(named);
      if (named && ours && !(named.flags & ANONYMOUS)) {
        if (depth === 0 ? !exported.has(named) : !anywhere.has(named)) {
          problems.add(`${subpath}: ${where} returns ${named.getName()}${depth === 0 ? '' : ' (exported by no entry point)'}`);
        }
      }
      const awaited = checker.getAwaitedType(type);
      if (awaited && awaited !== type) return visit(awaited, where, depth, seen);
      // A union's or intersection's members and an array's items are what is returned; our own generics' arguments
      // are what it holds.
      if (type.isUnionOrIntersection()) for (const part of type.types) visit(part, where, depth, seen);
      const args = type.aliasTypeArguments ?? (((type as ts.TypeReference).objectFlags ?? 0) & ts.ObjectFlags.Reference ? checker.getTypeArguments(type as ts.TypeReference) : []);
      for (const arg of args) visit(arg, where, ours ? 1 : depth, seen);
      if (depth === 1 || !(type.flags & ts.TypeFlags.Object) || !(ours || !named || named.flags & ANONYMOUS)) return;
      for (const property of type.getProperties()) {
        const declaration = property.valueDeclaration ?? property.declarations?.[0];
        if (!declaration || property.getName().startsWith('#')) continue;
        if (ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.NonPublicAccessibilityModifier) continue;
        const propertyType = checker.getTypeOfSymbolAtLocation(property, declaration);
        const signatures = propertyType.getCallSignatures();
        if (signatures.length) for (const s of signatures) visit(s.getReturnType(), `${where}.${property.getName()}()`, 1, seen);
        else visit(propertyType, `${where}.${property.getName()}`, 1, seen);
      }
    };
    for (const symbol of exported) {
      if (!(symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class))) continue;
      const type = checker.getTypeOfSymbolAtLocation(symbol, symbol.valueDeclaration!);
      for (const signature of type.getCallSignatures()) visit(signature.getReturnType(), `${symbol.getName()}()`, 0);
      if (!typeOnly.has(symbol)) for (const signature of type.getConstructSignatures()) visit(signature.getReturnType(), `new ${symbol.getName()}()`, 0);
    }
  }
  return [...problems].sort();
}

describe('the public types', () => {
  it('every type a public function returns is exported (the function’s own entry point exports its return type)', () => {
    expect(unexportedReturnTypes()).toEqual([]);
  }, 120_000);
});
