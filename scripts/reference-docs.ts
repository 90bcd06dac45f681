// The reference pages generated from the source: docs/reference/cli.md from the CLI's own help
// (commander, as a user's terminal shows it), config.md from the zod schema of the config (the
// JSON Schema editors read), errors.md from the error catalogue. A test fails when a committed
// page differs from what this renders; `npx tsx scripts/write-reference.ts` rewrites them.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { configJsonSchema } from '../src/config/json-schema.ts';
import { catalogueEntries } from '../src/domain/errors.ts';

const bin = fileURLToPath(new URL('../bin/agentdevel.mjs', import.meta.url));
const GENERATED = (source: string, page: string) =>
  `<!-- Generated from ${source} by scripts/write-reference.ts: edit the source, then run \`npx tsx scripts/write-reference.ts\`. test/unit/reference-docs.test.ts fails when this page is stale. -->\n\n# ${page}\n`;

/** `agentdevel ARGS --help` as a pipe sees it (commander wraps at 80 columns off a terminal). */
function help(args: readonly string[]): string {
  const ran = spawnSync(process.execPath, [bin, ...args, '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/' }, timeout: 60_000 });
  if (ran.status !== 0) throw new Error(`agentdevel ${args.join(' ')} --help exited ${ran.status}: ${ran.stderr}`);
  return ran.stdout.trimEnd();
}

/** The command names a help text lists under "Commands:" (commander's own `help` left out). */
function commandsIn(text: string): string[] {
  const listing = text.split('\nCommands:\n')[1] ?? '';
  return listing
    .split('\n')
    .filter((line) => /^ {2}\S/.test(line))
    .map((line) => line.trim().split(/\s/)[0] as string)
    .filter((name) => name !== 'help');
}

function cliPage(): string {
  const sections: string[] = [];
  const visit = (path: readonly string[]) => {
    const text = help(path);
    sections.push(`## agentdevel${path.map((p) => ` ${p}`).join('')}\n\n\`\`\`text\n${text}\n\`\`\`\n`);
    for (const sub of commandsIn(text)) visit([...path, sub]);
  };
  visit([]);
  return `${GENERATED('the CLI (src/cli/commands/*.options.ts, through src/cli/main.ts)', 'CLI reference')}\nEvery command, with every option, as \`agentdevel COMMAND --help\` prints it. [Commands](commands.md) says what each is for, and how commands behave together.\n\n${sections.join('\n')}`;
}

interface JsonSchema {
  readonly type?: string | string[];
  readonly description?: string;
  readonly default?: unknown;
  readonly properties?: Record<string, JsonSchema>;
  readonly items?: JsonSchema;
  readonly enum?: unknown[];
  readonly const?: unknown;
  readonly anyOf?: JsonSchema[];
  readonly oneOf?: JsonSchema[];
  readonly minimum?: number;
  readonly maximum?: number;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function typeOf(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.map(typeOf).join(' or ');
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? 'any');
  if (type === 'array' && schema.items) return `array of ${typeOf(schema.items)}`;
  const range = type === 'number' || type === 'integer' ? [schema.minimum !== undefined ? `≥ ${schema.minimum}` : '', schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER ? `≤ ${schema.maximum}` : ''].filter(Boolean).join(', ') : '';
  return range ? `${type} (${range})` : type;
}

function configPage(): string {
  const root = JSON.parse(configJsonSchema()) as JsonSchema & { required?: string[] };
  const rows: string[] = [];
  const visit = (schema: JsonSchema, path: string) => {
    for (const [key, child] of Object.entries(schema.properties ?? {})) {
      if (key === '$schema') continue;
      const name = path ? `${path}.${key}` : key;
      const objectLike = child.type === 'object' && child.properties;
      const shownDefault = child.default === undefined || objectLike ? '' : `\`${JSON.stringify(child.default)}\``;
      const required = path === '' && root.required?.includes(key) ? ' (required)' : '';
      rows.push(`| \`${name}\`${required} | ${cell(objectLike ? 'object' : typeOf(child))} | ${cell(shownDefault)} | ${cell(child.description ?? '')} |`);
      if (objectLike) visit(child, name);
    }
  };
  visit(root, '');
  return `${GENERATED('the config schema (src/config/schema.ts)', 'Config keys')}\nEvery key of \`agentdevel.config.json\`. Unknown keys are errors (exit 2, naming the key). \`agentdevel.config.schema.json\` holds the same for editors. [Config, blueprints and tasks](workspace-files.md) explains the main ones with examples.\n\n| key | type | default | what it does |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n`;
}

function errorsPage(): string {
  const exits: Record<number, string> = { 1: 'rejected', 2: 'bad input', 3: 'infrastructure', 70: 'internal' };
  const rows = catalogueEntries().map((entry) => `| \`${entry.code}\` | ${entry.exit} (${exits[entry.exit] ?? ''}) | ${cell(entry.hint)} |`);
  return `${GENERATED('the error catalogue (src/domain/errors.ts)', 'Exit and error codes')}\nThe exit code is the outcome: **0** success or accepted · **1** rejected by the gate · **2** bad input or usage (the message names the file and line, or the key) · **3** infrastructure, or a gate that cannot decide · **70** internal error (a bug; the stack is printed).\n\nEvery error a user sees has a code, one line saying what happened, and a next step: the hint below, unless the message gives a more precise one. With \`--json\`, an error is also one JSON object on stdout: \`{"error": {"code", "message", "hint", "exitCode"}}\`.\n\n| code | exit | what to do |\n| --- | --- | --- |\n${rows.join('\n')}\n`;
}

/** Each generated page by its path from the repository's root. */
export function referencePages(): Record<string, string> {
  return { 'docs/reference/cli.md': cliPage(), 'docs/reference/config.md': configPage(), 'docs/reference/errors.md': errorsPage() };
}
