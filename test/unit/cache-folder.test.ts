import path from 'node:path';
import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { agentdevelCacheDir } from '../../src/adapters/process/cache-folder.ts';

describe("agentdevel's cache folder (the launcher, a worker's checkouts)", () => {
  it('is under XDG_CACHE_HOME, else ~/.cache; an empty XDG_CACHE_HOME counts as unset', () => {
    expect(agentdevelCacheDir({ XDG_CACHE_HOME: '/c', HOME: '/h' })).toBe(path.join('/c', 'agentdevel'));
    expect(agentdevelCacheDir({ XDG_CACHE_HOME: '', HOME: '/h' })).toBe(path.join('/h', '.cache', 'agentdevel'));
    expect(agentdevelCacheDir({})).toBe(path.join(homedir(), '.cache', 'agentdevel'));
  });
});
