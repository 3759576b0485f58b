import { Type } from '@sinclair/typebox';

export const ResetAnswer = Type.Object({
  now: Type.String({ format: 'date-time', description: 'Business time after the reset' }),
  removed: Type.Record(Type.String(), Type.Integer(), { description: 'Rows removed, by table' }),
});
