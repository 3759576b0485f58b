import type { DataCipher } from '../security/data-cipher.js';
import type { ThreeDsConfig } from './config.js';
import { EmvcoThreeDsServer } from './emvco/server.js';
import { SandboxThreeDsServer } from './sandbox/server.js';
import type { ThreeDsDeps } from './types.js';

/** Path (under the gateway's base path) of the public endpoint the ACS posts a challenge's result to. */
export const NOTIFICATION_PATH = '/v1/3ds/notifications';
/** Path of the sandbox ACS's challenge page (served by the gateway with THREEDS_SERVER=sandbox). */
export const SANDBOX_ACS_PATH = '/v1/3ds/sandbox-acs';

/** The 3DS connector THREEDS_SERVER names, and where its challenges come back. */
/** What the connector is built from (the gateway's Config satisfies it). */
export interface ThreeDsSettings {
  publicUrl: string;
  gatewayBasePath: string;
  mode: string;
  threeDs: ThreeDsConfig;
}

export function threeDsDepsOf(config: ThreeDsSettings, cipher: DataCipher): ThreeDsDeps {
  const base = `${config.publicUrl}${config.gatewayBasePath}`;
  const settings = config.threeDs;
  const server =
    settings.kind === 'sandbox'
      ? // Derived from DATA_KEY: every instance signs and checks the sandbox ACS's messages alike.
        new SandboxThreeDsServer(cipher.deriveKey('sandbox-3ds-acs'), `${base}${SANDBOX_ACS_PATH}`)
      : settings.kind === 'emvco'
        ? new EmvcoThreeDsServer({ url: settings.url!, apiKey: settings.apiKey, timeoutMs: settings.timeoutMs })
        : undefined;
  return { server, notificationUrl: `${base}${NOTIFICATION_PATH}`, challengeTimeoutMs: settings.challengeTimeoutSeconds * 1000, sandbox: config.mode === 'sandbox' };
}
