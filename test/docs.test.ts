import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from './support/harness.js';
import { testDialect } from './support/database.js';

/** The README and docs/ stand alone (nothing outside the repository) and stay current. */
const root = join(import.meta.dirname, '..');
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe(`the README and docs/ (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  it('link only files inside the repository, and every linked file exists', () => {
    const offences: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(root, page), 'utf8');
      if (/\bshared\/(seeds|CONTRACT|reference|ARCHITECTURE)/.test(text)) offences.push(`${page} names shared/`);
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target)) continue;
        const file = resolve(root, dirname(page), target.split('#')[0]);
        if (relative(root, file).startsWith('..')) offences.push(`${page} links outside the repository: ${target}`);
        else if (!existsSync(file)) offences.push(`${page} links a missing file: ${target}`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('docs/api-reference.md lists every operation of the OpenAPI document (npx tsx scripts/api-reference.ts)', async () => {
    const reference = readFileSync(join(root, 'docs/api-reference.md'), 'utf8');
    const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json();
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    expect(ids.filter((id) => !reference.includes(`\`${id}\``))).toEqual([]);
  });
});
