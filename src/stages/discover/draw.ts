// Seeded randomness for discover, as a pure function of (seed, label): the same seed draws the
// same design split and the same archive growth, a draw can be recomputed from git alone to
// check a recorded round, and nothing depends on the order draws are asked in. Stages take a
// `Draw` in their input; tests inject scripted ones.

/** A number in [0, 1), fixed by its label. */
export type Draw = (label: string) => number;

/** 32 bits of FNV-1a over the text, mixed with murmur3's finaliser. */
function hash32(text: string, salt: number): number {
  let h = (0x811c9dc5 ^ salt) >>> 0;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/** The draw of a seed: 53 bits from two independent hashes of "seed:label". */
export function seededDraw(seed: number): Draw {
  return (label) => {
    const text = `${seed}:${label}`;
    const high = hash32(text, 0x9e3779b9) >>> 5; // 27 bits
    const low = hash32(text, 0x7f4a7c15) >>> 6; // 26 bits
    return (high * 67_108_864 + low) / 9_007_199_254_740_992;
  };
}

/** `n` of the items (all of them when there are fewer), chosen without replacement, in the items' order. */
export function sampleWithout<T>(items: readonly T[], n: number, draw: Draw, label: string): T[] {
  const pool = items.map((item, index) => ({ item, index }));
  const chosen: Array<{ item: T; index: number }> = [];
  for (let k = 0; k < Math.min(n, items.length); k += 1) {
    const at = Math.floor(draw(`${label}:${k}`) * pool.length);
    chosen.push(...pool.splice(at, 1));
  }
  return chosen.sort((a, b) => a.index - b.index).map((c) => c.item);
}
