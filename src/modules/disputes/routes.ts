import type { DisputeRouteDeps } from './route-deps.js';
import type { App } from '../../http/types.js';
import { acceptDisputeRoute } from './routes/accept-dispute.js';
import { addEvidenceRoute } from './routes/add-evidence.js';
import { getDisputeRoute } from './routes/get-dispute.js';
import { listDisputesRoute } from './routes/list-disputes.js';
import { registerDisputeRoute } from './routes/register-dispute.js';
import { resolveDisputeRoute } from './routes/resolve-dispute.js';
import { sandboxDisputeRoute } from './routes/sandbox-dispute.js';
import { sandboxInfractionRoute } from './routes/sandbox-infraction.js';

/** Disputes (chargebacks and MED claims): the operator's registration and decision, the merchant's answers, the sandbox's chargeback and infraction. */
export function registerDisputeRoutes(app: App, ctx: DisputeRouteDeps): void {
  registerDisputeRoute(app, ctx);
  resolveDisputeRoute(app, ctx);
  listDisputesRoute(app, ctx);
  getDisputeRoute(app, ctx);
  addEvidenceRoute(app, ctx);
  acceptDisputeRoute(app, ctx);
  // Sandbox mode only: in production every /sandbox path is 404.
  if (ctx.sandboxClock) {
    sandboxDisputeRoute(app, ctx);
    sandboxInfractionRoute(app, ctx);
  }
}
