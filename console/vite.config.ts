import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));
const outDir = join(here, '../dist/console-app');

/** Writes file.br and file.gz beside each text file of the build, so the server sends them as they are. */
function precompress(): Plugin {
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
  return {
    name: 'latchkey-precompress',
    apply: 'build',
    closeBundle() {
      for (const file of walk(outDir)) {
        if (!/\.(js|css|html|svg|json|txt)$/.test(file)) continue;
        const bytes = readFileSync(file);
        writeFileSync(`${file}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
      }
    },
  };
}

type ModuleInfo = { isEntry: boolean; importers: readonly string[] } | null;

/**
 * Every module the entry imports statically goes into one chunk: the bundler would otherwise split
 * what the lazy pages share with it into several small chunks, all loaded first anyway, each with
 * its own request and headers (the first load's budget, test/console/console.browser.test.ts).
 */
function firstLoadChunk(id: string, { getModuleInfo }: { getModuleInfo: (id: string) => ModuleInfo }): string | undefined {
  const seen = new Set<string>();
  const fromEntry = (module: string): boolean => {
    if (seen.has(module)) return false;
    seen.add(module);
    const info = getModuleInfo(module);
    return info !== null && (info.isEntry || info.importers.some(fromEntry));
  };
  return fromEntry(id) ? 'app' : undefined;
}

export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [precompress()],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir, emptyOutDir: true, target: 'es2022', sourcemap: false, assetsInlineLimit: 0, rollupOptions: { output: { manualChunks: firstLoadChunk } } },
  logLevel: 'warn',
});
