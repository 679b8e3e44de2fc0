import { UsageError, optionalNumber, println, requireString, type Command } from '../command-line/command.js';
import { withDatabase } from '../command-line/database.js';
import { presentSite } from './presenters.js';
import { createSite, siteInputError, type SiteInput } from './service.js';

/** Reads the options into a site, or throws a UsageError naming what is wrong. */
export function siteInputFromOptions(values: Record<string, string | boolean | undefined>): SiteInput {
  const name = requireString(values, 'name');
  const colour = values.colour === undefined ? undefined : String(values.colour);
  const latitude = optionalNumber(values, 'latitude');
  const longitude = optionalNumber(values, 'longitude');
  const radius = optionalNumber(values, 'radius');
  const given = [latitude, longitude, radius].filter((v) => v !== undefined).length;
  if (given !== 0 && given !== 3) throw new UsageError('--latitude, --longitude and --radius go together');
  const input: SiteInput = { name, ...(colour !== undefined ? { colour } : {}) };
  if (given === 3) input.location = { latitude: latitude!, longitude: longitude!, radius: radius! };
  const error = siteInputError(input);
  if (error !== null) throw new UsageError(error);
  return input;
}

/** `latchkey site create --name N [--colour #RRGGBB] [--latitude X --longitude Y --radius R]`: prints the site as JSON. */
export const siteCreateCommand: Command = {
  path: ['site', 'create'],
  summary: 'Create a site (a group of locks); prints it as JSON',
  usage: 'site create --name N [--colour #RRGGBB] [--latitude X --longitude Y --radius R]',
  options: {
    name: { type: 'string', description: 'the site\'s name (required)' },
    colour: { type: 'string', description: 'its colour as #RRGGBB; default: none' },
    latitude: { type: 'string', description: 'latitude of its centre in degrees, -90 to 90 (with --longitude and --radius)' },
    longitude: { type: 'string', description: 'longitude of its centre in degrees, -180 to 180 (with --latitude and --radius)' },
    radius: { type: 'string', description: 'radius around the centre in metres (with --latitude and --longitude)' },
  },
  async run(values, io) {
    const input = siteInputFromOptions(values);
    return withDatabase(io, async (db) => {
      const site = await createSite(db.kysely, input, Date.now() / 1000);
      println(io.stdout, JSON.stringify(presentSite(site)));
      return 0;
    });
  },
};
