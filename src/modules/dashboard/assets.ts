import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { serveVersionedAsset } from '../../http/versioned-asset.js';

// chart.js exports only its module builds; its UMD file sits beside them in dist/.
const require = createRequire(import.meta.url);

/** Versioned URLs of the dashboard's own files (`?v=<hash>`: a deploy never serves a stale script). */
export interface DashboardAssets {
  style: string;
  script: string;
  chart: string;
}

/**
 * GET /dashboard/assets/*: the dashboard's only style and scripts (the CSP forbids inline
 * ones): ours, from assets/, and Chart.js's UMD build from node_modules (no front-end build step).
 */
export function serveDashboardAssets(scope: FastifyInstance): DashboardAssets {
  const own = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url));
  const js = 'text/javascript; charset=utf-8';
  return {
    style: serveVersionedAsset(scope, '/assets/dashboard.css', own('dashboard.css'), 'text/css; charset=utf-8', '/dashboard'),
    script: serveVersionedAsset(scope, '/assets/dashboard.js', own('dashboard.js'), js, '/dashboard'),
    chart: serveVersionedAsset(scope, '/assets/chart.umd.min.js', readFileSync(join(dirname(require.resolve('chart.js')), 'chart.umd.min.js')), js, '/dashboard'),
  };
}
