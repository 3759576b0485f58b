import { Type } from '@sinclair/typebox';

/** Path parameters shared by the operator routes of several modules (`/admin/merchants/{merchantId}/...`). */
export const MerchantIdParams = Type.Object({ merchantId: Type.String({ minLength: 1, maxLength: 20 }) });
