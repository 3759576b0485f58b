import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { DashboardAssets } from '../layout.js';

// chart.js exports only its module builds; its UMD file sits beside them in dist/.
const require = createRequire(import.meta.url);

/**
 * GET /dashboard/assets/*: the dashboard's only style and scripts (the CSP forbids inline
 * ones): ours, and Chart.js's UMD build from node_modules (no front-end build step). Read once;
 * pages link them with `?v=<hash>`, so a browser caches them and never runs a stale one.
 */
export function dashboardAssetRoutes(scope: FastifyInstance): DashboardAssets {
  const files = [
    { key: 'style', name: 'dashboard.css', type: 'text/css; charset=utf-8', body: readFileSync(new URL('../assets/dashboard.css', import.meta.url)) },
    { key: 'script', name: 'dashboard.js', type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('../assets/dashboard.js', import.meta.url)) },
    { key: 'chart', name: 'chart.umd.min.js', type: 'text/javascript; charset=utf-8', body: readFileSync(join(dirname(require.resolve('chart.js')), 'chart.umd.min.js')) },
  ] as const;
  const urls: Record<string, string> = {};
  for (const file of files) {
    const version = createHash('sha256').update(file.body).digest('hex').slice(0, 12);
    const url = `/assets/${file.name}`;
    urls[file.key] = `/dashboard${url}?v=${version}`;
    scope.get(url, {
      schema: { hide: true },
      handler: async (_request, reply) =>
        reply
          .type(file.type)
          .header('X-Content-Type-Options', 'nosniff')
          .header('Cache-Control', 'public, max-age=86400')
          .header('ETag', `"${version}"`)
          .send(file.body),
    });
  }
  return urls as unknown as DashboardAssets;
}
