// What a child process may see of agentdevel's environment: nothing, unless named. Secrets
// (API keys and the like) therefore never reach sandboxed code, traces, reports or logs.
//
// What is a secret: every value a `command` agent receives through `passEnv` and every value of
// the variables the workspace declares in `secrets`, whatever their names (a name is no proof:
// DB_PASS, PGPASSWORD, MYSQL_PWD, SMTP_CREDS...); beyond those, any variable of agentdevel's own
// environment whose name looks like one.

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|CREDS|AUTH|PRIVATE|COOKIE|SIGNATURE|SALT|DSN)|(^|_)(PASS|PWD|PW)$/i;
/** The shell's working directories: named like a password (…PWD), holding a path. */
const NOT_SECRET = new Set(['PWD', 'OLDPWD']);

export function secretName(name: string): boolean {
  return SECRET_NAME.test(name) && !NOT_SECRET.has(name.toUpperCase());
}

/** Declared and passed values shorter than this cannot be told from ordinary text, and are not redacted. */
export const MIN_DECLARED_SECRET = 4;

/** Values declared secret during this process (passEnv values, the workspace's `secrets`): every redactor redacts them. */
const declared = new Set<string>();
let declaredVersion = 0;

/** Makes every redactor of this process redact these values from now on (empty and very short values are left out). */
export function declareSecrets(values: Iterable<string | undefined>): void {
  for (const value of values) {
    if (value === undefined || value.length < MIN_DECLARED_SECRET || declared.has(value)) continue;
    declared.add(value);
    declaredVersion += 1;
  }
}

/**
 * The secrets this process holds that an untrusted process given `passed` would not be given,
 * named for a message (never their values): the variables of `parent` that hold one (a secret
 * name, or a declared value), and, as one entry, declared secrets held outside the environment
 * (the password of a `--queue` URL on agentdevel's command line).
 */
export function heldSecretNames(parent: Readonly<Record<string, string | undefined>>, passed: readonly string[] = []): string[] {
  const given = new Set(valuesOf(parent, passed));
  const inEnvironment = new Set(Object.values(parent));
  const names = Object.entries(parent)
    .filter(([name, value]) => value !== undefined && !passed.includes(name) && ((secretName(name) && value.length >= 8) || declared.has(value)))
    .map(([name]) => name)
    .sort();
  const elsewhere = [...declared].some((value) => !given.has(value) && !inEnvironment.has(value));
  return elsewhere ? [...names, 'a secret given outside the environment (such as the password of --queue)'] : names;
}

/** The values of the named variables of `parent` (those that are set). */
export function valuesOf(parent: Readonly<Record<string, string | undefined>>, names: readonly string[]): string[] {
  return names.flatMap((name) => (parent[name] === undefined ? [] : [parent[name] as string]));
}

/** A minimal environment for child processes: a PATH to find executables, plus named passes. */
export function childEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  pass: readonly string[] = [],
): Record<string, string> {
  const env: Record<string, string> = { PATH: parent.PATH ?? '/usr/bin:/bin' };
  for (const name of pass) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  // Whatever is passed to untrusted code is a secret, whatever its name.
  declareSecrets(valuesOf(parent, pass));
  return env;
}

/** The values to redact from anything agentdevel writes or prints. */
export function secretValues(parent: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(parent)
    .filter(([name, value]) => secretName(name) && value !== undefined && value.length >= 8)
    .map(([, value]) => value as string);
}

export type Redactor = (text: string) => string;

/**
 * The forms a secret takes in what agentdevel writes: as is, JSON-escaped (a trace line, a
 * record in the store), and JSON-escaped twice (a JSON document quoted inside another, such as
 * an agent's output that is itself JSON). A secret with none of `"`, `\` or control characters
 * has one form.
 */
function writtenForms(secret: string): string[] {
  const once = JSON.stringify(secret).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  return [secret, once, twice];
}

/**
 * A JSON value with every string in it (keys too) redacted, its shape kept: redacting its text
 * instead could break it (a declared value such as `true` or `null`).
 */
export function redactStrings(value: unknown, redact: Redactor): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redact));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [redact(key), redactStrings(item, redact)]));
  return value;
}

/** The password of any URL that carries one (redis://user:PASSWORD@host, as `--queue` takes it), replaced by [redacted]. */
export function redactUrlPasswords(text: string): string {
  return text.includes('@') ? text.replace(URL_PASSWORD, '$1[redacted]@') : text;
}
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:"]*:)[^\s/@"]+@/gi;

export function makeRedactor(secrets: readonly string[]): Redactor {
  let sorted: string[] = [];
  let version = -1;
  return (text) => {
    if (version !== declaredVersion) {
      version = declaredVersion;
      sorted = [...new Set([...secrets, ...declared].flatMap(writtenForms))].sort((a, b) => b.length - a.length);
    }
    let out = redactUrlPasswords(text);
    // Most texts hold no secret: looked for before split and join allocate a copy for each.
    for (const secret of sorted) if (out.includes(secret)) out = out.split(secret).join('[redacted]');
    return out;
  };
}
