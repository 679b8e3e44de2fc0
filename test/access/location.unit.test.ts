import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { distanceMetres, meetsLocationRequirement } from '../../src/access/location.js';

const LONDON = { latitude: 51.5074, longitude: -0.1278 };
const PARIS = { latitude: 48.8566, longitude: 2.3522 };

describe('distanceMetres', () => {
  it('measures London to Paris as about 343.5 km', () => {
    assert.ok(Math.abs(distanceMetres(LONDON, PARIS) - 343_500) < 1000, String(distanceMetres(LONDON, PARIS)));
  });

  it('is symmetric and zero for the same point', () => {
    assert.equal(distanceMetres(LONDON, LONDON), 0);
    assert.equal(distanceMetres(LONDON, PARIS), distanceMetres(PARIS, LONDON));
  });

  it('gives half the circumference for antipodes and ~111 m for 0.001° at the equator', () => {
    assert.ok(Math.abs(distanceMetres({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 180 }) - 20_015_000) < 1000);
    assert.ok(Math.abs(distanceMetres({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 0.001 }) - 111.2) < 0.1);
  });

  it('crosses the antimeridian the short way', () => {
    assert.ok(distanceMetres({ latitude: 0, longitude: 179.9995 }, { latitude: 0, longitude: -179.9995 }) < 112);
  });
});

describe('meetsLocationRequirement', () => {
  const door = { latitude: 51.5, longitude: 0 };
  // 0.0005° of latitude is about 55.6 m; 0.001° about 111 m.
  const near = { latitude: 51.5005, longitude: 0, accuracy: 10 };
  const far = { latitude: 51.501, longitude: 0, accuracy: 10 };

  it('passes with no requirement or a disabled one, even without a location', () => {
    assert.deepEqual(meetsLocationRequirement(undefined, undefined), { ok: true });
    assert.deepEqual(meetsLocationRequirement(null, undefined), { ok: true });
    assert.deepEqual(meetsLocationRequirement({ ...door, enabled: false }, undefined), { ok: true });
    assert.deepEqual(meetsLocationRequirement({ ...door, enabled: false }, { latitude: -40, longitude: 170, accuracy: 5000 }), { ok: true });
  });

  it('enforces a requirement whose enabled flag is absent or true', () => {
    assert.deepEqual(meetsLocationRequirement(door, undefined), { ok: false, reason: 'location required' });
    assert.deepEqual(meetsLocationRequirement({ ...door, enabled: true }, undefined), { ok: false, reason: 'location required' });
  });

  it('refuses a missing or malformed location', () => {
    for (const location of [null, {}, { latitude: 51.5, longitude: 0 }, { latitude: Number.NaN, longitude: 0, accuracy: 1 }, { latitude: 91, longitude: 0, accuracy: 1 }, { latitude: 51.5, longitude: 0, accuracy: -1 }]) {
      assert.deepEqual(meetsLocationRequirement(door, location), { ok: false, reason: 'location required' }, JSON.stringify(location));
    }
  });

  it('passes inside the default 100 m radius with default 200 m accuracy', () => {
    assert.deepEqual(meetsLocationRequirement(door, near), { ok: true });
    assert.deepEqual(meetsLocationRequirement(door, { ...near, accuracy: 200 }), { ok: true });
  });

  it('refuses accuracy worse than required (default 200 m, or the configured value)', () => {
    assert.deepEqual(meetsLocationRequirement(door, { ...near, accuracy: 200.5 }), { ok: false, reason: 'location accuracy insufficient' });
    assert.deepEqual(meetsLocationRequirement({ ...door, accuracy: 5 }, near), { ok: false, reason: 'location accuracy insufficient' });
    assert.deepEqual(meetsLocationRequirement({ ...door, accuracy: 10 }, near), { ok: true });
  });

  it('refuses a position beyond the radius (default 100 m, or the configured value)', () => {
    assert.deepEqual(meetsLocationRequirement(door, far), { ok: false, reason: 'outside permitted area' });
    assert.deepEqual(meetsLocationRequirement({ ...door, radius: 120 }, far), { ok: true });
    assert.deepEqual(meetsLocationRequirement({ ...door, radius: 50 }, near), { ok: false, reason: 'outside permitted area' });
  });

  it('never says where the lock is', () => {
    const result = meetsLocationRequirement(door, far);
    assert.equal(result.ok, false);
    assert.doesNotMatch(JSON.stringify(result), /51\.5|latitude/);
  });
});
