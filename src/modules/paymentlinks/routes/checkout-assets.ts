import { readFileSync } from 'node:fs';
import { serveVersionedAsset } from '../../../http/versioned-asset.js';
import type { App } from '../../../http/types.js';
import type { PageAssets } from '../checkout/page.js';

/**
 * GET /pay/assets/card-checks.js, /pay/assets/checkout.js and /pay/assets/checkout.css: the
 * page's only scripts and style (the CSP forbids inline ones), linked with `?v=<hash>`.
 */
export function checkoutAssetRoutes(app: App): PageAssets {
  const file = (name: string) => readFileSync(new URL(`../assets/${name}`, import.meta.url));
  return {
    checks: serveVersionedAsset(app, '/pay/assets/card-checks.js', file('card-checks.js'), 'text/javascript; charset=utf-8'),
    script: serveVersionedAsset(app, '/pay/assets/checkout.js', file('checkout.js'), 'text/javascript; charset=utf-8'),
    style: serveVersionedAsset(app, '/pay/assets/checkout.css', file('checkout.css'), 'text/css; charset=utf-8'),
  };
}
