import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

/**
 * CONTRIBUTING.md: no two top-level folders of src/ import each other (type-only imports aside).
 * Reads every source file's relative imports (static and dynamic, re-exports included), skips
 * those that import only types, and names each pair of folders that import each other.
 */

const SRC = resolve('src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The top-level folder of src/ a file is in; undefined for files directly in src/ (the composition root and its peers). */
function folderOf(file: string): string | undefined {
  const parts = relative(SRC, file).split('/');
  return parts.length > 1 ? parts[0] : undefined;
}

/** `import type …`, `export type …`, or a braced list whose every name is `type X`: gone once compiled. */
function importsOnlyTypes(clause: string): boolean {
  if (/^(import|export)\s+type\b/.test(clause)) return true;
  const list = /^(?:import|export)\s*\{([^}]*)\}\s*from/.exec(clause);
  if (list === null) return false;
  const names = list[1]!.split(',').map((name) => name.trim()).filter((name) => name !== '');
  return names.length > 0 && names.every((name) => name.startsWith('type '));
}

/** The relative modules `source` imports at run time. */
function valueImports(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/^(?:import|export)\b[^'";]*?from\s+'(\.[^']+)'/gm)) {
    if (!importsOnlyTypes(match[0])) found.push(match[1]!);
  }
  for (const match of source.matchAll(/^import\s+'(\.[^']+)'/gm)) found.push(match[1]!);
  for (const match of source.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)) found.push(match[1]!);
  return found;
}

/** `a -> b` for each top-level folder `a` that imports from folder `b`, with the files that do. */
function folderEdges(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    if (from === undefined) continue;
    for (const specifier of valueImports(readFileSync(file, 'utf8'))) {
      const to = folderOf(resolve(dirname(file), specifier));
      if (to === undefined || to === from) continue;
      const key = `${from} -> ${to}`;
      edges.set(key, [...(edges.get(key) ?? []), `${relative(SRC, file)} imports ${specifier}`]);
    }
  }
  return edges;
}

describe('src/ layout', () => {
  it('reads value imports and ignores type-only ones', () => {
    const source = [
      "import { a } from '../x/a.js';",
      "import type { B } from '../x/b.js';",
      "import { type C, type D } from '../x/c.js';",
      "import { type E, f } from '../x/e.js';",
      "export { g } from '../x/g.js';",
      "export type { H } from '../x/h.js';",
      'import {\n  i,\n  j,\n} from \'../x/i.js\';',
      "const k = await import('../x/k.js');",
      "import { l } from 'node:fs';",
    ].join('\n');
    assert.deepEqual(valueImports(source).sort(), ['../x/a.js', '../x/e.js', '../x/g.js', '../x/i.js', '../x/k.js']);
  });

  it('has no two top-level folders of src/ that import each other', () => {
    const edges = folderEdges();
    const pairs: string[] = [];
    for (const [key, files] of edges) {
      const [from, to] = key.split(' -> ') as [string, string];
      const back = edges.get(`${to} -> ${from}`);
      if (back !== undefined && from < to) pairs.push([`${from} <-> ${to}`, ...files, ...back].join('\n  '));
    }
    assert.deepEqual(pairs, [], `folders that import each other (move the shared part to a folder both may import, or pass it in):\n${pairs.join('\n')}`);
  });
});
