import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { SCHEMA_FILE, consoleApiTypes, openApiDocument } from '../../scripts/console-api-types.js';

describe('the console API types', () => {
  it('console/src/api/schema.d.ts is what the service\'s /openapi.json generates now', async () => {
    const expected = await consoleApiTypes(await openApiDocument());
    const actual = await readFile(SCHEMA_FILE, 'utf8');
    if (actual === expected) return;
    const lines = [actual.split('\n'), expected.split('\n')] as const;
    const at = lines[1].findIndex((line, i) => line !== lines[0][i]);
    assert.fail(`schema.d.ts is out of date (from line ${at + 1}: "${lines[0][at] ?? ''}", generated "${lines[1][at] ?? ''}"): run npm run console:types`);
  });
});
