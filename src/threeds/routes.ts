import { randomBytes } from 'node:crypto';
import formbody from '@fastify/formbody';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError } from '../http/errors.js';
import type { App } from '../http/types.js';
import { NOTIFICATION_PATH, SANDBOX_ACS_PATH } from './connect.js';
import { SandboxThreeDsServer, SANDBOX_OTP, type SandboxCReq } from './sandbox/server.js';
import type { ThreeDsDeps } from './types.js';

/** Where a posted CRes goes: the payments module's authentication (it completes the payment). */
export interface ChallengeResults {
  complete(cres: string): Promise<{ payment_id: string; status: string; three_ds: string | null }>;
}

/** What the 3DS routes use. */
export interface ThreeDsRouteDeps {
  config: { gatewayBasePath: string };
  threeDs: ThreeDsDeps;
  challenges: ChallengeResults;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A small page; `nonce` lets its one inline script (the auto-post of a form) run under the CSP. */
function sendPage(reply: FastifyReply, status: number, title: string, body: string, nonce?: string) {
  return reply
    .code(status)
    .header('Content-Security-Policy', `default-src 'none'; style-src 'unsafe-inline'; ${nonce ? `script-src 'nonce-${nonce}'; ` : ''}form-action *; base-uri 'none'`)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cache-Control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body style="font-family:sans-serif;max-width:30em;margin:3em auto">${body}</body></html>`);
}

/** A form the page posts at once (and a button, should scripts be off). */
function autoPost(action: string, fields: Record<string, string>, nonce: string): string {
  const inputs = Object.entries(fields).map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`).join('');
  return `<form id="post" method="post" action="${escape(action)}">${inputs}<button type="submit">Continue</button></form><script nonce="${nonce}">document.getElementById('post').submit()</script>`;
}

const FormBody = Type.Object({ cres: Type.Optional(Type.String({ maxLength: 8192 })), creq: Type.Optional(Type.String({ maxLength: 8192 })), threeDSSessionData: Type.Optional(Type.String({ maxLength: 1024 })), otp: Type.Optional(Type.String({ maxLength: 32 })) });

/**
 * The public 3-D Secure endpoints, in a scope that parses forms (a browser posts them):
 * - POST {gateway}/v1/3ds/notifications: the ACS's result of a challenge (`cres`), posted by the
 *   buyer's browser. The payment is authorized (or denied) and the browser sent to its returnUrl.
 * - with THREEDS_SERVER=sandbox, the sandbox ACS's challenge page at {gateway}/v1/3ds/sandbox-acs.
 */
export function registerThreeDsRoutes(app: App, ctx: ThreeDsRouteDeps): void {
  void app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    await scope.register(formbody, { bodyLimit: 32 * 1024 });
    const base = ctx.config.gatewayBasePath;

    scope.post(`${base}${NOTIFICATION_PATH}`, {
      schema: { hide: true, body: FormBody },
      handler: async (request, reply) => {
        const cres = request.body.cres;
        if (!cres) throw new ApiError(400, 'cres', 'cres is required: the challenge result the ACS hands the browser.');
        const row = await ctx.challenges.complete(cres);
        // The payment's 3DS state (payments.three_ds): only its returnUrl is read here.
        const state = JSON.parse(row.three_ds!) as { returnUrl?: string };
        if (state.returnUrl) {
          const to = new URL(state.returnUrl);
          to.searchParams.set('paymentId', row.payment_id);
          to.searchParams.set('status', row.status);
          return reply.code(303).header('location', to.toString()).send();
        }
        return sendPage(reply, 200, 'Payment', `<p>Payment <code>${escape(row.payment_id)}</code>: <strong id="status">${escape(row.status)}</strong>.</p>`);
      },
    });

    const sandbox = ctx.threeDs.server;
    if (!(sandbox instanceof SandboxThreeDsServer)) return;
    const acsPath = `${base}${SANDBOX_ACS_PATH}`;
    /** The signed CRes goes back to our notification endpoint through the browser (a form it posts at once). */
    const answer = (reply: FastifyReply, creq: SandboxCReq, otp: string, session: string | undefined) => {
      const cres = sandbox.answerChallenge(creq, otp.trim());
      const nonce = randomBytes(16).toString('base64');
      return sendPage(reply, 200, 'Sandbox ACS', autoPost(creq.notificationUrl, { cres, ...(session ? { threeDSSessionData: session } : {}) }, nonce), nonce);
    };

    // The challenge: the browser posts the CReq; the page asks the one-time code.
    scope.post(acsPath, {
      schema: { hide: true, body: FormBody },
      handler: async (request, reply) => {
        const creq = request.body.creq ?? '';
        const opened = sandbox.openCReq(creq);
        if (!opened) return sendPage(reply, 400, 'Sandbox ACS', '<p>This is not a challenge request of the sandbox 3DS server.</p>');
        // The code may come with the CReq itself (a client without the page): answered at once.
        if (request.body.otp !== undefined) return answer(reply, opened, request.body.otp, request.body.threeDSSessionData);
        const session = request.body.threeDSSessionData ?? '';
        return sendPage(
          reply,
          200,
          'Sandbox ACS: verify it is you',
          `<h1>Sandbox bank</h1><p>Enter the one-time code sent to your phone (sandbox: <code>${SANDBOX_OTP}</code> passes, anything else fails).</p>` +
            `<form method="post" action="${escape(acsPath)}/answer"><input type="hidden" name="creq" value="${escape(creq)}"><input type="hidden" name="threeDSSessionData" value="${escape(session)}">` +
            `<label>Code <input name="otp" id="otp" autocomplete="one-time-code" inputmode="numeric"></label> <button type="submit" id="verify">Verify</button></form>`,
        );
      },
    });

    // The code typed in the page.
    scope.post(`${acsPath}/answer`, {
      schema: { hide: true, body: FormBody },
      handler: async (request, reply) => {
        const creq = sandbox.openCReq(request.body.creq ?? '');
        if (!creq) return sendPage(reply, 400, 'Sandbox ACS', '<p>This is not a challenge request of the sandbox 3DS server.</p>');
        return answer(reply, creq, request.body.otp ?? '', request.body.threeDSSessionData);
      },
    });
  });
}
