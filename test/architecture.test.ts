import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layering rules of docs/architecture.md, read from the source so they stay true:
 * modules talk through services; a module's tables are queried only by that module; route
 * files import no repository; src/domain is pure.
 */
const root = join(import.meta.dirname, '..');
const src = join(root, 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const sources = files(src).map((path) => ({ path, rel: relative(src, path), text: readFileSync(path, 'utf8') }));

/** The module a file belongs to: `modules/<name>`, or the top folder (`acquirer`, `jobs`, ...). */
function moduleOf(rel: string): string {
  const parts = rel.split('/');
  return parts[0] === 'modules' ? `modules/${parts[1]}` : parts.length > 1 ? parts[0] : rel;
}

function importsOf(file: { path: string; text: string }): string[] {
  const specifiers = [...file.text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2]);
  return specifiers.filter((s) => s.startsWith('.')).map((s) => relative(src, resolve(dirname(file.path), s.replace(/\.js$/, '.ts'))));
}

/** Which module owns each table (its migration and repository live there). */
const OWNER: Record<string, string> = {
  merchants: 'modules/merchants',
  credentials: 'modules/merchants',
  login_attempts: 'modules/auth',
  dashboard_sessions: 'modules/dashboard',
  card_keys: 'modules/cards',
  card_tokens: 'modules/cards',
  vault_cards: 'modules/cards',
  vault_card_updates: 'modules/cards',
  card_update_links: 'modules/recurrence',
  payments: 'modules/payments',
  payment_events: 'modules/payments',
  payment_refunds: 'modules/payments',
  disputes: 'modules/disputes',
  dispute_evidence: 'modules/disputes',
  dispute_files: 'modules/disputes',
  antifraud_settings: 'modules/antifraud',
  antifraud_blocklist: 'modules/antifraud',
  merchant_pricing: 'modules/settlement',
  receivables: 'modules/settlement',
  pix_charges: 'modules/pix',
  pix_payments: 'modules/pix',
  pix_refunds: 'modules/pix',
  pix_due_charges: 'modules/pix',
  pix_recurrences: 'modules/pix',
  pix_recurring_charges: 'modules/pix',
  pix_reconcile_cursors: 'modules/pix',
  plans: 'modules/recurrence',
  subscriptions: 'modules/recurrence',
  billings: 'modules/recurrence',
  bankslips: 'modules/bankslips',
  bankslip_events: 'modules/bankslips',
  payment_links: 'modules/paymentlinks',
  payment_link_history: 'modules/paymentlinks',
  rate_limit_windows: 'modules/paymentlinks',
  webhook_subscriptions: 'modules/webhooks',
  webhook_notifications: 'modules/webhooks',
  webhook_attempts: 'modules/webhooks',
  sandbox_acquirer_ledger: 'acquirer',
  acquirer_connections: 'acquirer',
  jobs: 'jobs',
  idempotency_keys: 'http',
};
/** Infrastructure that reads every module's tables by design: key rotation re-seals every sealed column, metrics count jobs. */
const INFRASTRUCTURE = new Set(['security', 'observability', 'db']);
/** `settings` is the key-value table every part keeps its own keys in (clock offset, canary, demo account). */
const SHARED = new Set(['settings']);
/** Documented exceptions: `from -> table`, with the reason in docs/architecture.md. */
const EXCEPTIONS = new Set([
  // Velocity counts in the same statement as the blocklist checks: one round trip per payment.
  'modules/antifraud -> payments',
]);

describe('module boundaries and layering', () => {
  it("no module imports another module's repository or route files", () => {
    const offences: string[] = [];
    for (const file of sources.filter((f) => f.rel.startsWith('modules/') || f.rel.startsWith('acquirer/'))) {
      const from = moduleOf(file.rel);
      for (const target of importsOf(file)) {
        const to = moduleOf(target);
        if (to === from || !(target.startsWith('modules/') || target.startsWith('acquirer/'))) continue;
        if (/repository|(^|\/)routes\//.test(target)) offences.push(`${file.rel} imports ${target}`);
      }
    }
    expect(offences).toEqual([]);
  });

  it("no module queries another module's tables", () => {
    const offences: string[] = [];
    for (const file of sources) {
      const from = moduleOf(file.rel);
      if (INFRASTRUCTURE.has(from)) continue;
      // A common table expression's name (`.with('moved', ...)`) is the statement's own, no table.
      const ctes = new Set([...file.text.matchAll(/\.with\(\s*'([a-z_]+)'/g)].map((m) => m[1]));
      for (const [, table] of file.text.matchAll(/(?:selectFrom|insertInto|updateTable|deleteFrom|sandboxDelete\(\s*\w+,)\(?\s*'([a-z_]+)'/g)) {
        if (SHARED.has(table) || ctes.has(table)) continue;
        const owner = OWNER[table];
        expect(owner, `table ${table} has no owner in this check`).toBeDefined();
        if (owner !== from && !EXCEPTIONS.has(`${from} -> ${table}`)) offences.push(`${file.rel} queries ${table} (owned by ${owner})`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('route files import no repository, not even their own', () => {
    const offences = sources
      .filter((f) => /(^|\/)routes\//.test(f.rel))
      .flatMap((f) => importsOf(f).filter((t) => /repository/.test(t)).map((t) => `${f.rel} imports ${t}`));
    expect(offences).toEqual([]);
  });

  it("a module's schemas live in its schemas.ts, not beside its route files", () => {
    expect(sources.filter((f) => /(^|\/)routes\/schemas\.ts$/.test(f.rel)).map((f) => f.rel)).toEqual([]);
  });

  it('services throw domain errors: only the HTTP layer imports src/http/errors', () => {
    // Route files, src/http and the dashboard's pages turn errors into answers; everything else
    // throws src/domain/errors.ts and never picks a status.
    const http = (rel: string) => /(^|\/)routes(\/|\.ts$)/.test(rel) || rel.startsWith('http/') || rel.startsWith('modules/dashboard/pages/');
    const offences = sources
      .filter((f) => !http(f.rel) && importsOf(f).includes('http/errors.ts'))
      .map((f) => f.rel);
    expect(offences).toEqual([]);
  });

  it('src/domain is pure: it imports only src/domain', () => {
    const offences = sources
      .filter((f) => f.rel.startsWith('domain/'))
      .flatMap((f) => {
        const packages = [...f.text.matchAll(/from\s+['"]([^'".][^'"]*)['"]/g)].map((m) => m[1]);
        return [...importsOf(f).filter((t) => !t.startsWith('domain/')), ...packages].map((t) => `${f.rel} imports ${t}`);
      });
    expect(offences).toEqual([]);
  });
});

describe('file size', () => {
  it('no file in src/ is over 350 lines (the table types in db/schema.ts and the migrations apart)', () => {
    const all = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? all(join(dir, name)) : [join(dir, name)]));
    const offences = all(src)
      .map((path) => ({ rel: relative(src, path), lines: readFileSync(path, 'utf8').split('\n').length - 1 }))
      .filter((f) => /\.(ts|js|css)$/.test(f.rel) && f.rel !== 'db/schema.ts' && !f.rel.startsWith('db/migrations/') && f.lines > 350)
      .map((f) => `${f.rel}: ${f.lines} lines`);
    expect(offences).toEqual([]);
  });
});

/**
 * The floors, bottom up (each entry a folder or file of src/). A file imports its own entry and
 * lower floors only, so nothing below the composition root (src/root) knows it, and nothing
 * below src/modules knows a module: what a lower floor needs of one it declares as an interface,
 * and the root passes the module's service.
 */
const FLOORS: readonly (readonly string[])[] = [
  ['domain', 'clock.ts', 'ids.ts', 'logger.ts', 'threads.ts', 'config-catalogue.ts', 'config-error.ts', 'outbound'],
  ['db', 'cache', 'bank'],
  ['security', 'http', 'jobs'],
  ['acquirer', 'pix-provider', 'threeds'],
  ['config.ts'],
  ['observability'],
  ['modules'],
  ['root'],
  ['server.ts'],
  ['cli'],
  ['cli.ts'],
];
const ROOT_FLOOR = FLOORS.findIndex((floor) => floor.includes('root'));
const MODULES_FLOOR = FLOORS.findIndex((floor) => floor.includes('modules'));

/** The FLOORS entry of a path of src/: its top folder, or the file itself. */
const entryOf = (rel: string) => rel.split('/')[0];
const floorOf = (rel: string) => FLOORS.findIndex((floor) => floor.includes(entryOf(rel)));

describe('floors', () => {
  it('every folder and file of src/ has its floor', () => {
    expect([...new Set(sources.map((f) => entryOf(f.rel)))].filter((entry) => floorOf(entry) < 0)).toEqual([]);
  });

  it('no file below the composition root imports it (src/root: context, app, sealed columns)', () => {
    const offences = sources
      .filter((f) => floorOf(f.rel) < ROOT_FLOOR)
      .flatMap((f) => importsOf(f).filter((t) => entryOf(t) === 'root').map((t) => `${f.rel} imports ${t}`));
    expect(offences).toEqual([]);
  });

  it('no floor below src/modules imports a module', () => {
    const offences = sources
      .filter((f) => floorOf(f.rel) < MODULES_FLOOR)
      .flatMap((f) => importsOf(f).filter((t) => entryOf(t) === 'modules').map((t) => `${f.rel} imports ${t}`));
    expect(offences).toEqual([]);
  });

  it('a file imports its own folder and lower floors only', () => {
    const offences = sources.flatMap((f) =>
      importsOf(f)
        .filter((t) => entryOf(t) !== entryOf(f.rel) && floorOf(t) >= floorOf(f.rel))
        .map((t) => `${f.rel} (floor ${floorOf(f.rel) + 1}) imports ${t} (floor ${floorOf(t) + 1})`),
    );
    expect(offences).toEqual([]);
  });
});

/** Strongly connected components of the file import graph (Tarjan), the singletons left out. */
function importCircles(): string[][] {
  const graph = new Map(sources.map((f) => [f.rel, importsOf(f).filter((t) => t !== f.rel)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const circle: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      circle.push(member);
    } while (member !== node);
    if (circle.length > 1) circles.push(circle.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return circles;
}

describe('import structure', () => {
  it('no two files import each other, directly or through others (type-only imports included)', () => {
    expect(importCircles()).toEqual([]);
  });

  it('the circle finder sees a circle when there is one', () => {
    // Guards the check above against a regex that stops reading imports: the composition root
    // imports the payment service, so a payment service importing it back would be a circle.
    const root = sources.find((f) => f.rel === 'root/context.ts')!;
    expect(importsOf(root)).toContain('modules/payments/service.ts');
  });
});
