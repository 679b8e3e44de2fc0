import { DEFAULT_LOCATION_ACCURACY, DEFAULT_LOCATION_RADIUS, type LocationRequirement } from './types.js';

/** Mean Earth radius (IUGG), metres. Haversine on a sphere is within about 0.5 % of the ellipsoid. */
const EARTH_RADIUS_METRES = 6_371_008.8;

const toRadians = (degrees: number) => (degrees * Math.PI) / 180;

/** Great-circle distance in metres between two positions in decimal degrees (haversine). */
export function distanceMetres(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const dLat = toRadians(b.latitude - a.latitude);
  const dLon = toRadians(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(toRadians(a.latitude)) * Math.cos(toRadians(b.latitude)) * Math.sin(dLon / 2) ** 2;
  // min() guards against rounding pushing h just above 1 for antipodal points.
  return 2 * EARTH_RADIUS_METRES * Math.asin(Math.min(1, Math.sqrt(h)));
}

export type LocationCheck = { ok: true } | { ok: false; reason: string };

/** What an operation may carry as its position; anything else is treated as no location. */
interface ReportedLocation {
  latitude: number;
  longitude: number;
  accuracy: number;
}

function isUsableLocation(location: Partial<ReportedLocation> | null | undefined): location is ReportedLocation {
  if (location === null || location === undefined) return false;
  const { latitude, longitude, accuracy } = location;
  return (
    typeof latitude === 'number' && Number.isFinite(latitude) && Math.abs(latitude) <= 90 &&
    typeof longitude === 'number' && Number.isFinite(longitude) && Math.abs(longitude) <= 180 &&
    typeof accuracy === 'number' && Number.isFinite(accuracy) && accuracy >= 0
  );
}

/**
 * Checks an operation's reported position against a lock's location requirement (decisions §4).
 * No requirement, or one with `enabled: false`, always passes. Otherwise the position must be
 * present and well-formed, its accuracy no worse (no larger) than the required accuracy, and its
 * distance from the requirement's centre no more than the radius. Reasons never reveal where the
 * lock is.
 */
export function meetsLocationRequirement(
  req: LocationRequirement | null | undefined,
  location: Partial<ReportedLocation> | null | undefined,
): LocationCheck {
  if (req === null || req === undefined || req.enabled === false) return { ok: true };
  if (!isUsableLocation(location)) return { ok: false, reason: 'location required' };
  if (location.accuracy > (req.accuracy ?? DEFAULT_LOCATION_ACCURACY)) return { ok: false, reason: 'location accuracy insufficient' };
  if (distanceMetres(req, location) > (req.radius ?? DEFAULT_LOCATION_RADIUS)) return { ok: false, reason: 'outside permitted area' };
  return { ok: true };
}
