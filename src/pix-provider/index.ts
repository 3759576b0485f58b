import type { Clock } from '../clock.js';
import type { PixConfig } from './config.js';
import { BcbPixProvider } from './bcb/provider.js';
import { SandboxPixProvider } from './sandbox.js';
import type { PixProvider } from './types.js';

/** The PSP PIX_PROVIDER names. */
export function createPixProvider(config: PixConfig, publicUrl: string, clock: Clock): PixProvider {
  return config.kind === 'bcb' ? new BcbPixProvider(config, clock) : new SandboxPixProvider(publicUrl);
}
