import { Type } from '@sinclair/typebox';
import { BLOCKLIST_KINDS } from './blocklist.js';
import { SETTING_LIMITS } from './settings.js';
import { EXAMPLES } from '../../http/examples.js';

const count = (description: string) => Type.Integer({ ...SETTING_LIMITS.maxPerRule, description });
const score = (description: string) => Type.Integer({ ...SETTING_LIMITS.score, description });

const velocityFields = {
  windowMinutes: Type.Integer({ ...SETTING_LIMITS.windowMinutes, description: 'Sliding window, minutes of business time' }),
  maxPerCard: count('Payments with the same card in the window at which velocity_card fires'),
  maxPerDocument: count('Payments with the same customer document in the window at which velocity_document fires'),
  maxPerIp: count('Payments from the same customer IP in the window at which velocity_ip fires'),
};

const settingsFields = {
  amountLimit: Type.Integer({ ...SETTING_LIMITS.amountLimit, description: 'Amounts above this (cents) score amount_limit' }),
  reviewScore: score('Score from which a payment is held for review (Blocked); less than rejectScore'),
  rejectScore: score('Score from which a payment is rejected (Denied, returnCode 59)'),
  checkIpCountry: Type.Boolean({ description: "Score ip_country_mismatch when the IP's configured country differs from customer.country" }),
  challengeAmount: Type.Union([Type.Integer({ ...SETTING_LIMITS.amountLimit }), Type.Null()], {
    description: '3-D Secure: a payment the gateway authenticates (with deviceInfo) above this amount (cents) asks the issuer for a challenge (03); null: off',
  }),
  challengeScore: Type.Union([score('3-D Secure: from this anti-fraud score'), Type.Null()], { description: '3-D Secure: a payment the gateway authenticates with this score or more asks for a challenge (03); null: off' }),
};

export const AntifraudSettings = Type.Object({ velocity: Type.Object(velocityFields), ...settingsFields });

/** Any part of the settings; unknown fields are dropped (additionalProperties false + removeAdditional). */
export const AntifraudSettingsPatch = Type.Object(
  {
    velocity: Type.Optional(Type.Partial(Type.Object(velocityFields, { additionalProperties: false }))),
    ...Type.Partial(Type.Object(settingsFields)).properties,
  },
  { additionalProperties: false, examples: [EXAMPLES.updateAntifraudSettings] },
);

export const BlocklistKind = Type.Union(BLOCKLIST_KINDS.map((k) => Type.Literal(k)));

export const BlocklistEntry = Type.Object({
  id: Type.Integer(),
  kind: BlocklistKind,
  value: Type.String({ description: 'card: the fingerprint (never the number); document bare; email lower-case; ip canonical address or CIDR' }),
  reason: Type.Union([Type.String(), Type.Null()]),
  createdDate: Type.String({ format: 'date-time' }),
});

export const IpCountryRanges = Type.Object({
  ranges: Type.Array(
    Type.Object({
      cidr: Type.String({ minLength: 1, maxLength: 49, description: 'IPv4/IPv6 address or CIDR range' }),
      country: Type.String({ minLength: 2, maxLength: 2, description: 'ISO 3166-1 alpha-2' }),
    }),
    { maxItems: 10_000 },
  ),
}, { examples: [EXAMPLES.replaceIpCountries] });
