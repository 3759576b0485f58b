import type { DisputeRouteDeps } from '../route-deps.js';
import { gatewayAuth, principalOf } from '../../../http/guards.js';
import { errorResponses, security } from '../../../http/openapi.js';
import type { App } from '../../../http/types.js';
import { MAX_SUBMISSION_BYTES } from '../evidence.js';
import { DisputeIdParams, DisputeResult, EvidenceBody } from '../schemas.js';

/** Base64 takes 4 bytes for 3, plus the JSON around it. */
const EVIDENCE_BODY_LIMIT = Math.ceil((MAX_SUBMISSION_BYTES * 4) / 3) + 256 * 1024;

/** POST {gateway}/v1/disputes/{disputeId}/evidence: text and files answering a dispute. */
export function addEvidenceRoute(app: App, ctx: DisputeRouteDeps): void {
  app.post(`${ctx.config.gatewayBasePath}/v1/disputes/:disputeId/evidence`, {
    bodyLimit: EVIDENCE_BODY_LIMIT,
    schema: {
      tags: ['Disputes'],
      operationId: 'addDisputeEvidence',
      summary: 'Send evidence for a dispute',
      description:
        'Text and up to 10 files (PDF, PNG or JPEG, by their bytes as well as their declared contentType; 2 MB each, 5 MB together), kept encrypted. ' +
        'The dispute moves to UnderReview. 400 with the error array (nothing stored) for a file refused; 409 after respondBy or on a closed dispute.',
      security: security.gateway,
      params: DisputeIdParams,
      body: EvidenceBody,
      response: { 200: DisputeResult, ...errorResponses(400, 401, 403, 404, 409, 413) },
    },
    config: { idempotent: true },
    onRequest: gatewayAuth(ctx, 'payments'),
    handler: async (request) => ctx.disputes.addEvidence(principalOf(request).merchantId, request.params.disputeId, request.body),
  });
}
