import { sandboxLocation, sandboxRecurrenceLocation } from './config.js';
import type { NewProviderCharge, NewProviderDueCharge, NewProviderRecurrence, PixProvider, PixReceipt, ProviderPage, ProviderRecurrenceState, ProviderRecurringChargeState, RefundOutcome } from './types.js';

/**
 * PIX_PROVIDER=sandbox: the gateway plays the PSP. Its locations point at the gateway itself
 * (`GET /pix/v2/{txid}` answers the signed payload), payments are played with
 * `/sandbox/pix/{id}/pay`, and there is no PSP list to reconcile with.
 */
export class SandboxPixProvider implements PixProvider {
  readonly kind = 'sandbox' as const;

  constructor(private readonly publicUrl: string) {}

  async createCharge(charge: NewProviderCharge): Promise<{ location: string }> {
    return { location: sandboxLocation(this.publicUrl, charge.txid) };
  }

  /** Charges and due charges share the path: both fit the BR Code with the same host (see PUBLIC_URL's check). */
  /** The gateway serves the sandbox's codes itself: its location reads the slip's state. */
  async removeDueCharge(): Promise<void> {}

  async createDueCharge(charge: NewProviderDueCharge): Promise<{ location: string }> {
    return { location: sandboxLocation(this.publicUrl, charge.txid) };
  }

  async listReceived(): Promise<PixReceipt[]> {
    return [];
  }

  /** No PSP holds the sandbox's Pix: the sandbox PSP's MED returns are reported by the Pix module itself (src/modules/pix/sandbox-med.ts). */
  async readPix(): Promise<PixReceipt | null> {
    return null;
  }

  /** The sandbox returns at once; `POST /sandbox/pix/refunds/{id}/fail` plays a devolução not made. */
  async refund(): Promise<RefundOutcome> {
    return { status: 'Refunded' };
  }

  /** It keeps nothing: a refund recorded but never sent (a crash in between) is unknown to it. */
  async lookupRefund(): Promise<RefundOutcome | null> {
    return null;
  }

  /**
   * Pix Automático: the gateway plays both PSPs. The locrec and the charge are served by the
   * gateway (`GET /pix/v2/rec/{id}`, `GET /pix/v2/{txid}`); the payer's answers, the due dates'
   * settlements and the retries are played by the Pix module on the sandbox clock
   * (`/sandbox/pix/recurrences/...`), which keeps the state this connector would read.
   */
  async createRecurrence(recurrence: NewProviderRecurrence): Promise<{ recurrenceId: string; location: string; chargeLocation: string }> {
    return { recurrenceId: recurrence.recurrenceId, location: sandboxRecurrenceLocation(this.publicUrl, recurrence.locationId), chargeLocation: sandboxLocation(this.publicUrl, recurrence.txid) };
  }

  async sendRecurringCharge(): Promise<void> {}

  async requestRetry(): Promise<void> {}

  async cancelRecurringCharge(): Promise<void> {}

  async cancelRecurrence(): Promise<void> {}

  /** The sandbox's recurrences live in the gateway's own tables: nothing to reconcile with. */
  async listRecurrences(): Promise<ProviderPage<ProviderRecurrenceState & { recurrenceId: string }>> {
    return { items: [], pages: 1 };
  }

  async listRecurringCharges(): Promise<ProviderPage<ProviderRecurringChargeState & { txid: string }>> {
    return { items: [], pages: 1 };
  }

  close(): void {}
}
