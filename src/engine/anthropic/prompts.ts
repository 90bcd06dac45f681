// What each role is told. Long, stable parts (instructions, the rubric, the blueprint's system
// prompt) come first and carry cache_control, so repeated calls read them from the prompt cache.
import type { CriticRequest, DiagnosisScriptRequest, SynthesisRequest } from '../../domain/model-port.ts';
import type { TraceEvent } from '../../domain/trace.ts';

export const CRITIC_INSTRUCTIONS = `You are the quality inspector of an AI agent. You read the rubric and the trace of one conversation and judge only what the trace shows.
- You do not know how the agent is built (its prompt, code or tools' internals) and you must not guess.
- Report whether the conversation passes the rubric, one symptom label, and one line describing what went wrong on the surface.
- Describe symptoms, not causes, and never propose fixes.
- A symptom label is snake_case (for example tool_error, missing_required_step, wrong_order). Reuse a label from the taxonomy when one fits; make a new one only for a new kind of failure. A passing conversation has the label "ok".
- When a deterministic scorer result is given, it is authoritative about the outcome; your description should still name the visible symptom.`;

export const DIAGNOSTICIAN_INSTRUCTIONS = `You write the diagnosis script of one iteration of a release pipeline for an AI agent.
The script reads the quality records of the current release and writes a diagnosis report: which symptoms dominate, which trace patterns go with them, representative failing cases, and which cases each symptom affects. The report is the engineering spec for the next release candidate, so make it concrete.
The script is untrusted code and runs in a sandbox: Node.js, an ES module, only node: built-ins, no network, no environment variables, no child processes; it may read RECORDS.jsonl and write REPORT.json and nothing else. Infrastructure errors (status "infra_error") are not failures.
Return the whole script.`;

export function synthesizerInstructions(blueprintRoot: string): string {
  return `You are the release engineer of an AI agent. Propose exactly one release candidate: one coherent change to the agent's blueprint that addresses the dominant symptoms of the diagnosis report.
- Edit only files under ${blueprintRoot}/. Each edit gives a path relative to the workspace root and the file's complete new content (null deletes the file). Anything outside ${blueprintRoot}/ is refused.
- The edited blueprint must still load: blueprint.json valid, Handlebars templates compile, tool wrappers (TypeScript modules exporting { name, description, inputSchema (zod), run(args, ctx) }) import and reach the environment only through ctx.env.
- State the change intent: the symptom labels you target and why this change should fix them. It documents alignment; it is not a claim of causality.
- The gate rejects any release candidate that breaks cases that used to pass. Prefer a precise change over a sweeping one. Do not propose again an idea that earlier iterations show was rejected, unless you change what made it fail.`;
}

/** What the critic sees of a trace: no model metadata (latency, tokens), only what happened. */
export function criticTrace(trace: readonly TraceEvent[]): TraceEvent[] {
  return trace.filter((event) => event.type !== 'llm');
}

export function criticUserMessage(request: CriticRequest): string {
  const taxonomy = request.taxonomy.map((s) => `- ${s.label}: ${s.description}`).join('\n') || '(empty so far)';
  const scorer = request.scorer ? JSON.stringify(request.scorer) : 'none (no deterministic scorer for this task)';
  return [
    `<taxonomy>\n${taxonomy}\n</taxonomy>`,
    `<scorer_result>\n${scorer}\n</scorer_result>`,
    `<trace>\n${JSON.stringify(criticTrace(request.trace))}\n</trace>`,
    'Give your verdict with the submit_verdict tool.',
  ].join('\n\n');
}

export function diagnosticianUserMessage(request: DiagnosisScriptRequest): string {
  const taxonomy = request.taxonomy.map((s) => `- ${s.label}: ${s.description}`).join('\n') || '(empty so far)';
  const parts = [
    `<record_schema>\n${request.recordSchema}\n</record_schema>`,
    `<taxonomy>\n${taxonomy}\n</taxonomy>`,
    `<sample_records>\n${request.sampleRecords.map((r) => JSON.stringify(r)).join('\n')}\n</sample_records>`,
    request.previousScript
      ? `<previous_script>\nThe previous iteration's script, as a soft reference (keep what worked, improve the rest):\n${request.previousScript}\n</previous_script>`
      : '<previous_script>none: this is the first iteration</previous_script>',
  ];
  if (request.repairFeedback) parts.push(`<repair>\nYour previous script failed: ${request.repairFeedback}\nFix it.\n</repair>`);
  parts.push('Return the script with the submit_script tool.');
  return parts.join('\n\n');
}

export function synthesizerUserMessage(request: SynthesisRequest): string {
  const files = request.files.map((f) => `<file path="${f.path}">\n${f.content}\n</file>`).join('\n');
  const history =
    request.history.length === 0
      ? 'none'
      : request.history
          .map((h) => `- iteration ${h.iteration}: ${h.decision}; targets ${h.targets.join(', ')}; rationale: ${h.rationale}; gate: ${h.reasons.join(' | ')}`)
          .join('\n');
  const parts = [
    `<blueprint name="${request.blueprintName}">\n${files}\n</blueprint>`,
    `<diagnosis>\n${JSON.stringify(request.diagnosis)}\n</diagnosis>`,
    `<earlier_release_candidates>\n${history}\n</earlier_release_candidates>`,
  ];
  if (request.repairFeedback) parts.push(`<repair>\n${request.repairFeedback}\n</repair>`);
  parts.push('Return exactly one release candidate with the submit_release_candidate tool.');
  return parts.join('\n\n');
}
