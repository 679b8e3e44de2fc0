import { Type, type Static } from '@sinclair/typebox';
import { Foreign } from '../locks/schemas.js';

export const SiteIdParams = Type.Object({ siteId: Type.String({ description: 'site UUID' }) });

export const SiteResponse = Type.Object({
  id: Type.String(),
  name: Type.String(),
  logoUrl: Type.Union([Type.String(), Type.Null()]),
  colour: Type.String({ description: 'hex colour #RRGGBB' }),
  longitude: Type.Number({ description: 'degrees; 0 for a site without a location' }),
  latitude: Type.Number({ description: 'degrees; 0 for a site without a location' }),
  radius: Type.Integer({ description: 'whole metres; 10 for a site without a location' }),
  created: Type.Number(),
  updated: Type.Number(),
});
export type SiteResponse = Static<typeof SiteResponse>;

export const SiteUserResponse = Type.Object({
  userId: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  displayName: Type.Union([Type.String(), Type.Null()]),
  orphan: Type.Boolean(),
  foreign: Foreign,
});
export type SiteUserResponse = Static<typeof SiteUserResponse>;

export const SiteLockParams = Type.Object({ siteId: Type.String({ description: 'site UUID' }), lockId: Type.String({ description: 'lock UUID' }) });
const SiteName = Type.String({ minLength: 1, maxLength: 255, description: 'the site\'s name' });
const SiteColour = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'hex colour #RRGGBB' });
export const NewSiteBody = Type.Object({ name: SiteName, colour: Type.Optional(SiteColour) }, { additionalProperties: false });
export const SiteChangesBody = Type.Object({ name: Type.Optional(SiteName), colour: Type.Optional(SiteColour) }, { additionalProperties: false });
