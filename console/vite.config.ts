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

export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [precompress()],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir, emptyOutDir: true, target: 'es2022', sourcemap: false, assetsInlineLimit: 0 },
  logLevel: 'warn',
});
