import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { PlainText } from '../http/plain-text.js';
import { BOUNDS, COLOUR_PATTERN } from './validation.js';

/** Names and short texts shown to people (and in mail): plain text only. */
const Text = (max: number) => PlainText({ minLength: 1, maxLength: max });
const Url = Type.String({ minLength: 1, maxLength: BOUNDS.url });
const Colour = Type.String({ pattern: COLOUR_PATTERN, description: '#RRGGBB' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const CallToAction = Type.Object(
  { actionTarget: Url, headline: Text(BOUNDS.name), actionText: Text(BOUNDS.name) },
  { additionalProperties: false },
);

export const EmailPreferences = Type.Object(
  {
    senderEmail: Type.Optional(Type.String({ format: 'email', minLength: 3, maxLength: 254 })),
    senderName: Type.Optional(Text(BOUNDS.name)),
    primaryColour: Type.Optional(Colour),
    secondaryColour: Type.Optional(Colour),
    onlySendEssentialEmails: Type.Optional(Type.Boolean({ description: 'stored and shown; Latchkey sends only essential email anyway' })),
    callToAction: Type.Optional(CallToAction),
  },
  { additionalProperties: false },
);
export type EmailPreferences = Static<typeof EmailPreferences>;

/** As shown: the colours always present (the service's own when unset), as the official SDK's model requires. */
export const EmailPreferencesRecord = Type.Composite([
  Type.Omit(EmailPreferences, ['primaryColour', 'secondaryColour']),
  Type.Object({ primaryColour: Colour, secondaryColour: Colour }),
]);
export type EmailPreferencesRecord = Static<typeof EmailPreferencesRecord>;

export const ApplicationCreate = Type.Object({
  name: Text(BOUNDS.name),
  companyName: Text(BOUNDS.name),
  mailingAddress: Type.String({ minLength: 1, maxLength: BOUNDS.mailingAddress }),
  privacyPolicy: Type.Optional(Url),
  supportContact: Type.Optional(Url),
  appLink: Type.Optional(Url),
  emailPreferences: Type.Optional(EmailPreferences),
  logoUrl: Type.Optional(Url),
});
export type ApplicationCreate = Static<typeof ApplicationCreate>;

/** Any of the creation fields; null clears an optional one. */
export const ApplicationUpdate = Type.Object({
  name: Type.Optional(Text(BOUNDS.name)),
  companyName: Type.Optional(Text(BOUNDS.name)),
  mailingAddress: Type.Optional(Type.String({ minLength: 1, maxLength: BOUNDS.mailingAddress })),
  privacyPolicy: Type.Optional(Nullable(Url)),
  supportContact: Type.Optional(Nullable(Url)),
  appLink: Type.Optional(Nullable(Url)),
  emailPreferences: Type.Optional(Nullable(EmailPreferences)),
  logoUrl: Type.Optional(Nullable(Url)),
});
export type ApplicationUpdate = Static<typeof ApplicationUpdate>;

const Jwk = Type.Record(Type.String(), Type.String());

export const ApplicationRecord = Type.Object({
  applicationId: Type.String(),
  name: Type.String(),
  companyName: Type.String(),
  mailingAddress: Type.String(),
  privacyPolicy: Type.Optional(Type.String()),
  supportContact: Type.Optional(Type.String()),
  appLink: Type.Optional(Type.String()),
  emailPreferences: EmailPreferencesRecord,
  logoUrl: Type.Optional(Type.String()),
  owners: Type.Array(Type.String(), { description: 'user ids of the owners' }),
  authKeys: Type.Record(Type.String(), Jwk, { description: 'kid → public JWK (`use` is "sig" when the key was added without one)' }),
  authDomains: Type.Array(Type.String(), { description: 'registered token issuers' }),
  corsDomains: Type.Array(Type.String()),
  encryptionKey: Type.Record(Type.String(), Type.String(), { description: 'RSA public JWK for identity JWEs (RSA-OAEP-256, A256GCM)' }),
  lastUpdated: Type.Number(),
});
export type ApplicationRecord = Static<typeof ApplicationRecord>;

export const ApplicationParams = Type.Object({ applicationId: Type.String({ minLength: 1, maxLength: 64 }) });
export const AuthKeyParams = Type.Object({ applicationId: Type.String({ minLength: 1, maxLength: 64 }), kid: Type.String({ minLength: 1, maxLength: 255 }) });

/** A JWK: checked member by member in auth-keys.ts, so the schema only bounds its shape. */
// `alg` and `use` are named so that the tolerant reader (src/http/tolerant-body.ts) takes the SDK's `"alg": null` as absent.
export const AuthKeyBody = Type.Object(
  { alg: Type.Optional(Type.String({ maxLength: 64 })), use: Type.Optional(Type.String({ maxLength: 64 })) },
  { additionalProperties: Type.Unknown(), propertyNames: { maxLength: 64 }, maxProperties: 32 },
);

export const UrlBody = Type.Object({ url: Url });

export const LogoRequest = Type.Object({ contentType: Type.String({ minLength: 1, maxLength: 255 }) });
export const LogoUpload = Type.Object({
  uploadUrl: Type.String({ description: 'PUT the image bytes here with the announced Content-Type, within 15 minutes' }),
  logoUrl: Type.String({ description: 'where the image will be served; set it with POST /platform/application/{id} {logoUrl}' }),
});

export const SenderCodeQuery = Type.Object({ code: Type.String({ minLength: 1, maxLength: 256, description: 'the code the sender address received' }) });
