// git's batched outputs, parsed: one process for many trees must give each tree its own files.
import { describe, expect, it } from 'vitest';
import { parseTreeListings } from '../../src/adapters/git/batch-reads.ts';

const EMPTY = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const [A, B, C] = ['a'.repeat(40), 'b'.repeat(40), 'c'.repeat(40)];
const added = (blob: string, file: string) => `:000000 100644 ${'0'.repeat(40)} ${blob} A\0${file}\0`;

describe('diff-tree --stdin -z, one listing per tree', () => {
  it('gives the entries after several header lines to the last of them (trees with nothing under the folder print a header alone)', () => {
    // As git prints it: A and B hold nothing under the folder, C holds two files.
    const out = `${EMPTY} ${A}\n${EMPTY} ${B}\n${EMPTY} ${C}\n${added('1'.repeat(40), 'releases/bp/v1/runs.json')}${added('2'.repeat(40), 'releases/bp/v1/taxonomy.json')}`;
    const listings = parseTreeListings(out, [A, B, C]);
    expect(listings.get(A)).toEqual([]);
    expect(listings.get(B)).toEqual([]);
    expect(listings.get(C)?.map((f) => f.path)).toEqual(['releases/bp/v1/runs.json', 'releases/bp/v1/taxonomy.json']);
  });

  it('keeps each tree’s entries apart when every tree has some', () => {
    const out = `${EMPTY} ${A}\n${added('1'.repeat(40), 'releases/bp/a.json')}${EMPTY} ${B}\n${added('2'.repeat(40), 'releases/bp/b.json')}`;
    const listings = parseTreeListings(out, [A, B]);
    expect(listings.get(A)?.map((f) => f.blob)).toEqual(['1'.repeat(40)]);
    expect(listings.get(B)?.map((f) => f.blob)).toEqual(['2'.repeat(40)]);
  });
});
