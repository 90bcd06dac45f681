import { describe, expect, it } from 'vitest';
import { declareSecrets, makeRedactor, secretValues } from '../../src/domain/environment.ts';

describe('what counts as a secret', () => {
  it('recognises password-like names beyond the old patterns, and not the shell working directory', () => {
    const env = { DB_PASS: 'hunter2-long', MYSQL_PWD: 'mysql-secret', SMTP_CREDS: 'smtp-secret', PWD: '/home/someone/work', OLDPWD: '/home/someone', HOME: '/home/someone' };
    expect(secretValues(env).sort()).toEqual(['hunter2-long', 'mysql-secret', 'smtp-secret']);
  });

  it('redacts a declared value from every redactor, including one made before the declaration', () => {
    const early = makeRedactor([]);
    declareSecrets(['orders-db-pw-1', 'ab', undefined]);
    expect(early('login orders-db-pw-1 ok')).toBe('login [redacted] ok');
    expect(makeRedactor([])('"orders-db-pw-1"')).toBe('"[redacted]"');
    // Too short to tell from ordinary text.
    expect(early('ab')).toBe('ab');
  });
});
