import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';

/**
 * The console's layout rules (docs/console.md "How it is built"): api/, hooks/, components/ and
 * pages/, where no page imports another; every query key from the one factory; nothing runs at
 * import but the entry's one call.
 */

const SRC = resolve('console/src');
const PAGES = join(SRC, 'pages');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative modules a file imports (static, re-exported or dynamic), as absolute paths without extension. */
function localImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)['"](\.[^'"]+)['"]/gm)].map((m) => m[1]!);
  return specifiers.map((specifier) => resolve(dirname(file), specifier).replace(/\.(tsx?|js)$/, ''));
}

/** The page a path belongs to: a file directly in pages/, or a folder there (its files are one page). */
function pageOf(path: string): string | null {
  const inside = relative(PAGES, path);
  if (inside.startsWith('..')) return null;
  return inside.split(sep)[0]!.replace(/\.tsx?$/, '');
}

describe('the console layout', () => {
  it('has api/, hooks/, components/ and pages/, and no page imports another page', () => {
    for (const folder of ['api', 'hooks', 'components', 'pages']) assert.ok(statSync(join(SRC, folder)).isDirectory(), `console/src/${folder}/`);
    const crossings: string[] = [];
    for (const file of sourceFiles(PAGES)) {
      for (const target of localImports(file)) {
        const page = pageOf(target);
        if (page !== null && page !== pageOf(file)) crossings.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
      }
    }
    assert.deepEqual(crossings, [], 'a page imports another page: move what they share to components/ or hooks/');
  });

  it('writes no query key outside hooks/query-keys.ts', () => {
    const handWritten: string[] = [];
    for (const file of sourceFiles(SRC)) {
      if (file === join(SRC, 'hooks', 'query-keys.ts')) continue;
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/queryKey:\s*(?!queryKeys\.)\S+|(?:set|get)QueryData(?:<[^>]*>)?\(\s*(?!queryKeys\.)\S+/g)) handWritten.push(`${relative(SRC, file)}: ${m[0]}`);
    }
    assert.deepEqual(handWritten, [], 'every query key comes from queryKeys (hooks/query-keys.ts)');
  });

  it('touches no browser state when its modules are imported: only the entry (main.tsx) starts the app', async () => {
    const touched: string[] = [];
    const trap = (name: string): unknown => new Proxy(function () {}, {
      get: (_target, property) => (property === Symbol.toPrimitive ? () => name : trap(`${name}.${String(property)}`)),
      apply: () => touched.push(`${name}()`),
      set: () => Boolean(touched.push(`${name} =`)),
    });
    // The libraries first: they may look for a window at import (typeof window), which is theirs to do.
    const consoleFiles = sourceFiles(SRC).filter((f) => !f.endsWith(`${sep}main.tsx`));
    const libraries = new Set(consoleFiles.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/^import [^'"]*['"]([^.'"][^'"]*)['"]/gm)].map((m) => m[1]!)));
    for (const library of libraries) await import(library);
    const globals = ['window', 'document', 'location', 'history', 'localStorage', 'sessionStorage', 'indexedDB', 'fetch', 'addEventListener', 'dispatchEvent'];
    const saved = new Map(globals.map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)]));
    // Reading a trapped global counts too: a module that only looks at `localStorage` at import already depends on the page.
    for (const name of globals) {
      Object.defineProperty(globalThis, name, { configurable: true, get: () => (touched.push(name), trap(name)) });
    }
    try {
      for (const file of consoleFiles) await import(pathToFileURL(file).href);
    } finally {
      for (const [name, descriptor] of saved) {
        if (descriptor) Object.defineProperty(globalThis, name, descriptor);
        else delete (globalThis as Record<string, unknown>)[name];
      }
    }
    assert.deepEqual(touched, [], 'a console module reaches for browser state at import');
    const entry = readFileSync(join(SRC, 'main.tsx'), 'utf8');
    assert.match(entry, /^startConsole\(document\.getElementById\('app'\)!\);$/m, 'main.tsx makes the one entry call');
  });
});
