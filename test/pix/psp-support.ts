import type { AddressInfo } from 'node:net';
import { makePixTestCerts, type PixTestCerts } from '../standins/pix-certs.js';
import { PixStandIn, STANDIN_PIX_CLIENT_ID, STANDIN_PIX_CLIENT_SECRET, STANDIN_PIX_KEY, type PixStandInOptions } from '../standins/pix-psp.js';
import { testApp, type TestApp } from '../support/harness.js';

/** Where the stand-in PSP posts its webhook, and the secret it signs it with. */
export const WEBHOOK_PATH = '/psp/pix-notifications';
export const WEBHOOK_SECRET = 'pix-webhook-secret-0123456789abcdef';

/** The settings of a gateway whose PSP is the stand-in (mutual TLS with `certs`); `extra` overrides or adds. */
export function pspEnv(psp: PixStandIn, certs: PixTestCerts, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PIX_PROVIDER: 'bcb',
    PIX_API_URL: psp.baseUrl,
    PIX_CLIENT_ID: STANDIN_PIX_CLIENT_ID,
    PIX_CLIENT_SECRET: STANDIN_PIX_CLIENT_SECRET,
    PIX_CERT_FILE: certs.clientCertFile,
    PIX_KEY_FILE: certs.clientKeyFile,
    PIX_CA_FILE: certs.caFile,
    PIX_KEY: STANDIN_PIX_KEY,
    PIX_WEBHOOK_PATH: WEBHOOK_PATH,
    PIX_WEBHOOK_SECRET: WEBHOOK_SECRET,
    PIX_WEBHOOK_ALLOWED_IPS: '127.0.0.1, ::1',
    ...extra,
  };
}

export interface PspGateway {
  certs: PixTestCerts;
  psp: PixStandIn;
  t: TestApp;
  /** A merchant's gateway token headers. */
  headers: Record<string, string>;
  close(): Promise<void>;
}

/**
 * The stand-in PSP over mutual TLS and a gateway using it, listening on 127.0.0.1 so that the
 * stand-in's webhook reaches it; one merchant. `close` stops both and removes the certificates.
 */
export async function pspGateway(options: { standIn?: Omit<PixStandInOptions, 'tls'>; env?: Record<string, string> } = {}): Promise<PspGateway> {
  const certs = makePixTestCerts();
  const psp = await new PixStandIn({ tls: { certFile: certs.serverCertFile, keyFile: certs.serverKeyFile, caFile: certs.caFile }, ...options.standIn }).start();
  const t = await testApp({ env: pspEnv(psp, certs, options.env) });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  psp.setWebhook({ url: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}${WEBHOOK_PATH}`, secret: WEBHOOK_SECRET });
  const headers = (await t.merchant()).headers;
  return {
    certs,
    psp,
    t,
    headers,
    async close() {
      await t.close();
      await psp.stop();
      certs.remove();
    },
  };
}
