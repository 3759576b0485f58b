import { randomUUID } from 'node:crypto';
import { SignJWT, errors, jwtVerify } from 'jose';
import type { Scope } from '../merchants/service.js';

/** Which API issued a token: a token is accepted only by that API. */
export type ApiName = 'gateway' | 'integration';

export interface TokenClaims {
  userName: string;
  merchantId: string;
  accountNumber: number;
  scopes: Scope[];
}

const ISSUER = 'payment-gateway';

export class TokenSigner {
  constructor(private readonly key: Uint8Array, private readonly ttlSeconds: number) {}

  async issue(api: ApiName, claims: TokenClaims, wallNow: Date) {
    const iat = Math.floor(wallNow.getTime() / 1000);
    const exp = iat + this.ttlSeconds;
    const accessToken = await new SignJWT({ mid: claims.merchantId, acct: claims.accountNumber, scope: claims.scopes.join(' ') })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(api)
      .setSubject(claims.userName)
      .setJti(randomUUID())
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.key);
    return { accessToken, created: new Date(iat * 1000), expiration: new Date(exp * 1000) };
  }

  /** Claims of a valid token for `api`, or the reason it is refused. */
  async verify(api: ApiName, token: string, wallNow: Date): Promise<TokenClaims | { refused: string }> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: api,
        algorithms: ['HS256'],
        currentDate: wallNow,
      });
      if (typeof payload.sub !== 'string' || typeof payload.mid !== 'string' || typeof payload.scope !== 'string') {
        return { refused: 'Invalid token.' };
      }
      return {
        userName: payload.sub,
        merchantId: payload.mid,
        accountNumber: Number(payload.acct),
        scopes: payload.scope.split(' ').filter(Boolean) as Scope[],
      };
    } catch (error) {
      if (error instanceof errors.JWTExpired) return { refused: 'Token expired.' };
      if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud') {
        return { refused: `Token was not issued by the ${api} API.` };
      }
      return { refused: 'Invalid token.' };
    }
  }
}
