import { Type, type Static } from '@sinclair/typebox';

const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const SiteIdParams = Type.Object({ siteId: Type.String({ description: 'site UUID' }) });

export const SiteResponse = Type.Object({
  id: Type.String(),
  name: Type.String(),
  logoUrl: Type.Union([Type.String(), Type.Null()]),
  colour: Type.String({ description: 'hex colour #RRGGBB' }),
  longitude: NullableNumber,
  latitude: NullableNumber,
  radius: NullableNumber,
  created: Type.Number(),
  updated: Type.Number(),
});
export type SiteResponse = Static<typeof SiteResponse>;

export const SiteUserResponse = Type.Object({
  userId: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  displayName: Type.Union([Type.String(), Type.Null()]),
  orphan: Type.Boolean(),
});
export type SiteUserResponse = Static<typeof SiteUserResponse>;
