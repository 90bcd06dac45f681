// The one module that reads agentdevel's own environment (process.env) below the CLI's process
// boundary (cli/io.ts). Adapters that run the user's tools as the user (git fetching over ssh,
// with the user's config) need it; everything else is handed a map (domain/environment.ts says
// what a child may see of it). A test (test/unit/ambient-reads.test.ts) keeps the reads here.

/** agentdevel's environment as the process received it. */
export function ambientEnvironment(): Readonly<Record<string, string | undefined>> {
  return process.env;
}
