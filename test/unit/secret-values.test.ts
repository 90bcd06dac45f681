import { describe, expect, it } from 'vitest';
import { declareSecrets, heldSecretNames, makeRedactor, secretValues } from '../../src/domain/environment.ts';

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

  it('names the secrets an untrusted process would not be given, by variable, and one entry for those held outside the environment', () => {
    const env = { PATH: '/usr/bin', ANTHROPIC_API_KEY: 'sk-ant-0123456789', ORDERS_TOKEN: 'tok-orders-42', REGION: 'eu-west-1', VAULT: 'vault-value-1' };
    declareSecrets(['vault-value-1']);
    // The declared set is the process's: the test above declared a value that no variable here holds.
    const outside = 'a secret given outside the environment (such as the password of --queue)';
    expect(heldSecretNames(env, ['ORDERS_TOKEN'])).toEqual(['ANTHROPIC_API_KEY', 'VAULT', outside]);
    expect(heldSecretNames({ PATH: '/usr/bin', ORDERS_TOKEN: 'tok-orders-42', OLD: 'orders-db-pw-1', VAULT: 'vault-value-1' }, ['ORDERS_TOKEN', 'OLD', 'VAULT'])).toEqual([]);
    expect(heldSecretNames({ PATH: '/usr/bin', ORDERS_TOKEN: 'tok-orders-42' }, ['ORDERS_TOKEN'])).toEqual([outside]);
  });
});
