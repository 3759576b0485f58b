import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/config-catalogue.js';
import { EVENT_TYPES } from '../src/modules/webhooks/event-types.js';
import { testApp, type TestApp } from './support/harness.js';
import { testDialect } from './support/database.js';

/** The README and docs/ stand alone (nothing outside the repository), stay short, and say what is true now. */
const root = join(import.meta.dirname, '..');
const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
const pages = ['README.md', ...docs];
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const readme = read('README.md');

/** Every file under a directory, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** The page without its fenced code blocks (shell variables and sample output are not prose). */
const prose = (text: string) => text.replace(/^\s*```[\s\S]*?^\s*```/gm, '');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
const anchorsOf = (text: string) => new Set([...prose(text).matchAll(/^#{1,6}\s+(.+)$/gm)].map(([, h]) => anchorOf(h)));

describe('the README and docs/: sizes and history', () => {
  it('each page (the README, every page of docs/) is at most 35,000 bytes', () => {
    const over = pages.map((page) => [page, statSync(join(root, page)).size] as const).filter(([, size]) => size > 35_000);
    expect(over).toEqual([]);
  });

  it('the README and docs/ together are at most 150,000 bytes', () => {
    const total = pages.reduce((sum, page) => sum + statSync(join(root, page)).size, 0);
    expect(total).toBeLessThanOrEqual(150_000);
  });

  it('name no issue numbers: not in the README, docs/ or any file under src/', () => {
    // "issue 12", "Issue 18, item 6", "issues 12 and 13"; not a range ("Visa issues 13 to 19 digits").
    const issue = /\bissues?\s+#?\d+(?!\d|\s+to\s+\d)/i;
    const offences = [...pages, ...filesUnder('src')].filter((path) => issue.test(read(path))).map((path) => `${path}: ${issue.exec(read(path))![0]}`);
    expect(offences).toEqual([]);
  });

  it('name only files that exist (src/, test/, bench/, scripts/, examples/, sdk/)', () => {
    const offences: string[] = [];
    for (const page of pages) {
      for (const [, path] of read(page).matchAll(/`((?:src|test|bench|scripts|examples|sdk)\/[\w./-]+?)`/g)) {
        // `src/...` may be the SDK's own (sdk/src/schema.d.ts), named where the SDK is described.
        if (!existsSync(join(root, path)) && !existsSync(join(root, 'sdk', path))) offences.push(`${page}: ${path}`);
      }
    }
    expect(offences).toEqual([]);
  });
});

describe('the README stands alone', () => {
  it('keeps no endpoint table: every operation is in docs/api-reference.md, which it links', () => {
    const rows = readme.split('\n').filter((line) => /^\|/.test(line) && /\b(GET|POST|PUT|PATCH|DELETE)\b[\s`|]*\//.test(line));
    expect(rows).toEqual([]);
    expect(readme).toContain('](docs/api-reference.md)');
  });

  it('links nothing outside the repository (no http(s) links or autolinks)', () => {
    expect(prose(readme).match(/\]\(\s*(?:https?:|\/\/)[^)]*\)|<https?:[^>]+>/g) ?? []).toEqual([]);
  });

  it('starts with the two commands: npm install && npm start, and npm test', () => {
    const first = /```sh\n([\s\S]*?)```/.exec(readme)![1];
    expect(first).toMatch(/^npm install && npm start\b/m);
    expect(first).toMatch(/^npm test\b/m);
  });
});

describe('the README and docs/ agree with the code', () => {
  it('every setting the service reads is in docs/operations.md; every setting a page names exists', () => {
    const names = new Set(SETTINGS.map((s) => s.name));
    const operations = read('docs/operations.md');
    expect(SETTINGS.map((s) => s.name).filter((name) => !operations.includes(`\`${name}\``))).toEqual([]);
    // A name shaped like a setting (the prefix of one: DB_, PIX_, GATEWAY_, ...) is a setting, or
    // a variable the code or the tests still read (the CLI's GATEWAY_USER_NAME, a test switch).
    const prefixes = new Set(SETTINGS.map((s) => s.name.split('_')[0]));
    const sources = [...filesUnder('src'), ...filesUnder('test'), ...filesUnder('bench')].map(read).join('\n');
    const offences: string[] = [];
    for (const page of pages) {
      for (const [name] of prose(read(page)).matchAll(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g)) {
        if (prefixes.has(name.split('_')[0]) && !names.has(name) && !sources.includes(name)) offences.push(`${page}: ${name}`);
      }
    }
    expect([...new Set(offences)]).toEqual([]);
  });

  it('docs/events.md lists exactly the event types the gateway raises', () => {
    const listed = new Set([...read('docs/events.md').matchAll(/^\| `([a-z_]+\.[a-z_]+)` \|/gm)].map(([, type]) => type));
    expect([...listed].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it("every link to a section of a page finds that section's heading", () => {
    const offences: string[] = [];
    for (const page of pages) {
      for (const [, target] of read(page).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:)/.test(target)) continue;
        const [file, anchor] = target.split('#');
        if (anchor === undefined) continue;
        const path = file ? resolve(root, dirname(page), file) : join(root, page);
        if (!path.endsWith('.md') || !existsSync(path)) continue;
        if (!anchorsOf(readFileSync(path, 'utf8')).has(anchor)) offences.push(`${page}: ${target}`);
      }
    }
    expect(offences).toEqual([]);
  });
});

describe(`the README and docs/ (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.close());

  it('link only files inside the repository, and every linked file exists', () => {
    const offences: string[] = [];
    for (const page of pages) {
      const text = read(page);
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
    const reference = read('docs/api-reference.md');
    const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json();
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    expect(ids.filter((id) => !reference.includes(`\`${id}\``))).toEqual([]);
  });
});
