import { Type } from '@sinclair/typebox';
import { EXAMPLES } from '../../http/examples.js';

export const TokenRequest = Type.Object({
  userName: Type.String({ minLength: 1, maxLength: 30 }),
  password: Type.String({ minLength: 1, maxLength: 256 }),
}, { examples: [EXAMPLES.createGatewayToken] });

export const TokenResponse = Type.Object(
  {
    authenticated: Type.Boolean(),
    created: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    expiration: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    accessToken: Type.Union([Type.String(), Type.Null()]),
    message: Type.String(),
  },
);
