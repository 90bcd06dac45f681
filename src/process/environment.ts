// What a child process may see of agentdevel's environment: nothing, unless named. Secrets
// (API keys and the like) therefore never reach sandboxed code, traces, reports or logs.

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;

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
  return env;
}

/** The values to redact from anything agentdevel writes or prints. */
export function secretValues(parent: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(parent)
    .filter(([name, value]) => SECRET_NAME.test(name) && value !== undefined && value.length >= 8)
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

/** The password of any URL that carries one (redis://user:PASSWORD@host, as `--queue` takes it), replaced by [redacted]. */
export function redactUrlPasswords(text: string): string {
  return text.includes('@') ? text.replace(URL_PASSWORD, '$1[redacted]@') : text;
}
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:"]*:)[^\s/@"]+@/gi;

export function makeRedactor(secrets: readonly string[]): Redactor {
  const sorted = [...new Set(secrets.flatMap(writtenForms))].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = redactUrlPasswords(text);
    for (const secret of sorted) out = out.split(secret).join('[redacted]');
    return out;
  };
}
