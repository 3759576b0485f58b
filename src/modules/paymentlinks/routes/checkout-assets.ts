import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { App } from '../../../http/types.js';
import type { PageAssets } from '../checkout/page.js';

const FILES = [
  { name: 'checkout.js', type: 'text/javascript; charset=utf-8' },
  { name: 'checkout.css', type: 'text/css; charset=utf-8' },
] as const;

/**
 * GET /pay/assets/checkout.js and /pay/assets/checkout.css: the page's only script and style
 * (the CSP forbids inline ones). Read once; the page links them with `?v=<hash>`, so a
 * browser may cache them for a day and still never runs an old script after a deploy.
 */
export function checkoutAssetRoutes(app: App): PageAssets {
  const urls: Record<string, string> = {};
  for (const file of FILES) {
    const body = readFileSync(new URL(`../assets/${file.name}`, import.meta.url));
    const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const url = `/pay/assets/${file.name}`;
    urls[file.name] = `${url}?v=${version}`;
    app.get(url, {
      schema: { hide: true },
      handler: async (_request, reply) =>
        reply
          .type(file.type)
          .header('X-Content-Type-Options', 'nosniff')
          .header('Cache-Control', 'public, max-age=86400')
          .header('ETag', `"${version}"`)
          .send(body),
    });
  }
  return { script: urls['checkout.js'], style: urls['checkout.css'] };
}
