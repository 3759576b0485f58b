import { describe, expect, it } from 'vitest';
import { jsonString, scaledJsonText } from '../../src/domain/json-text.js';

describe('scaledJsonText: an exact decimal as JSON text without a float conversion', () => {
  it('10,4 values: exactly what String(v / 10_000) writes, over every fraction and the 10,4 range', () => {
    const values = [0, 1, 9, 10, 99, 100, 9_999, 10_000, 10_001, 123_456_789, 9_999_999_999, -1, -10_000, -12_345, -9_999_999_999];
    // Every fraction, with integer parts small, odd and at the 6-digit maximum.
    for (let f = 0; f < 10_000; f++) values.push(f, 10_000 + f, 7_770_000 + f, 9_999_990_000 + f, -(30_000 + f));
    for (let v = 0; v < 9_999_999_999; v = Math.floor(v * 1.37) + 7) values.push(v);
    const wrong = values.filter((v) => scaledJsonText(v, 4) !== String(v / 10_000));
    expect(wrong).toEqual([]);
  });

  it('cents: exactly what String(v / 100) writes, over every fraction and amounts up to 11,2', () => {
    const values = [0, 1, 10, 99, 100, 101, 1_025, 99_999_999_999, -1, -100, -1_025];
    for (let f = 0; f < 100; f++) values.push(f, 100 + f, 123_400 + f, 99_999_999_900 + f, -(5_000 + f));
    for (let v = 0; v < 99_999_999_999; v = Math.floor(v * 1.29) + 3) values.push(v);
    const wrong = values.filter((v) => scaledJsonText(v, 2) !== String(v / 100));
    expect(wrong).toEqual([]);
  });
});

describe('jsonString', () => {
  it('writes what JSON.stringify writes, escapes and non-ASCII included', () => {
    const values = ['', 'plain', 'São Paulo', 'a"b', 'back\\slash', 'line\nbreak', 'tab\there', '\u0000\u001f\u007f', '\u2028\u2029', '😀', '\ud800 lone', 'end \udc00'];
    for (const v of values) expect(jsonString(v), JSON.stringify(v)).toBe(JSON.stringify(v));
  });
});
