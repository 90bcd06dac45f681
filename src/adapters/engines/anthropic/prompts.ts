// What each role is told. The wording lives in Handlebars templates in ./prompts/ (files
// starting with "_" are partials), so reviewers read what the model reads, and
// `agentdevel prompts --role R` prints it rendered. This module only builds the values the
// templates show. Long, stable parts (instructions, the rubric, the task's API) are system
// blocks and carry cache_control, so repeated calls read them from the prompt cache.
import { blueprintComponents } from '../../../domain/blueprint-components.ts';
import type { GradientDocument } from '../../../domain/gradient.ts';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  CriticRequest,
  DiagnosisScriptRequest,
  HelpfulnessRequest,
  MemberWriteRequest,
  OrchestratorPromptRequest,
  RcHistoryEntry,
  RequirementsReviewRequest,
  SynthesisRequest,
} from '../../../domain/ports/model.ts';
import type { RoleFacts } from '../../../domain/role-facts.ts';
import { scorerDecides } from '../../../domain/record.ts';
import { UNEXPLAINED_FAILURE_LABEL } from '../../../domain/symptoms.ts';
import { criticView, isCrewTrace, type TraceEvent } from '../../../domain/trace.ts';
import { compileTemplates, type Render } from '../../template/handlebars.ts';

const folder = fileURLToPath(new URL('./prompts/', import.meta.url));

type TemplateName =
  | 'critic-system'
  | 'critic-user'
  | 'rubric'
  | 'diagnostician-system'
  | 'diagnostician-user'
  | 'synthesizer-system'
  | 'synthesizer-user'
  | 'task'
  | 'requirements-system'
  | 'requirements-user'
  | 'judge-system'
  | 'judge-user'
  | 'writer-system'
  | 'writer-member'
  | 'writer-orchestrator'
  | 'orchestrator-writer-system';

let compiled: Map<string, Render> | null = null;

/** The templates are read and compiled once, when first used. */
function render(name: TemplateName, context: unknown): string {
  if (!compiled) {
    const sources = new Map(readdirSync(folder).filter((f) => f.endsWith('.hbs')).map((f) => [f.slice(0, -'.hbs'.length), readFileSync(path.join(folder, f), 'utf8')]));
    const partials = Object.fromEntries([...sources].filter(([n]) => n.startsWith('_')));
    compiled = new Map([...sources].filter(([n]) => !n.startsWith('_')).map(([n, source]) => [n, compileTemplates({ main: source, partials }, `${n}.hbs`)]));
  }
  const template = compiled.get(name);
  if (!template) throw new Error(`no prompt template ${name}.hbs in ${folder}`);
  return template(context).trim();
}

export interface RolePrompt {
  /** System blocks, each cached. */
  readonly system: readonly string[];
  readonly user: string;
}

/** What the critic sees of a trace (see criticView): only what happened. */
export const criticTrace = criticView;

export function criticPrompt(request: CriticRequest, facts: RoleFacts): RolePrompt {
  return {
    system: [render('critic-system', { facts, unexplained: UNEXPLAINED_FAILURE_LABEL, crew: isCrewTrace(request.trace) }), render('rubric', { rubric: request.rubric })],
    user: render('critic-user', {
      taxonomy: request.taxonomy,
      scorer: request.scorer ? JSON.stringify(request.scorer) : 'none (no deterministic scorer for this task)',
      decided: scorerDecides(request.scorer),
      scorerPassed: request.scorer?.pass === true,
      requirements: (request.requirements ?? []).map((r) => ({ id: r.id, text: r.text })),
      trace: JSON.stringify(criticTrace(request.trace)),
    }),
  };
}

export function requirementsPrompt(request: RequirementsReviewRequest, facts: RoleFacts): RolePrompt {
  return {
    system: [render('requirements-system', { facts, crew: request.cases.some((c) => isCrewTrace(c.trace)) }), render('rubric', { rubric: request.rubric })],
    user: render('requirements-user', {
      requirements: request.requirements.map((r) => ({ id: r.id, text: r.text })),
      cases: request.cases.map((c) => ({ caseId: c.caseId, trace: JSON.stringify(criticTrace(c.trace)) })),
    }),
  };
}

/** The helpfulness judge: the trajectory and the component's name and description, nothing of the blueprint. */
export function judgePrompt(request: HelpfulnessRequest, facts: RoleFacts): RolePrompt {
  return {
    system: [render('judge-system', { facts })],
    user: render('judge-user', { component: request.component, trace: JSON.stringify(criticTrace(request.trace)), callIds: request.callIds.join(', ') }),
  };
}

/** The member writer: the blueprint, the tools a member may have, the archive with its figures; in a warm-up, the draft at work. */
export function writerPrompt(request: MemberWriteRequest, facts: RoleFacts): RolePrompt {
  return {
    system: [render('writer-system', { facts })],
    user: render('writer-member', {
      rubric: request.task.rubric,
      blueprintName: request.blueprintName,
      root: request.blueprintRoot,
      files: request.files,
      tools: request.tools,
      archive: pretty(request.archive),
      symptoms: request.symptoms,
      warmup: request.warmup
        ? {
            attempt: request.warmup.attempt,
            draft: pretty(request.warmup.draft),
            trajectories: request.warmup.trajectories.map((t) => ({ caseId: t.caseId, pass: t.pass, trace: JSON.stringify(criticTrace(t.trace)) })),
          }
        : null,
    }),
  };
}

/** The member writer, asked for an orchestrator prompt customised to the chosen team. */
export function orchestratorPromptPrompt(request: OrchestratorPromptRequest, facts: RoleFacts): RolePrompt {
  return {
    system: [render('orchestrator-writer-system', { facts })],
    user: render('writer-orchestrator', {
      rubric: request.task.rubric,
      current: request.current,
      team: pretty(request.team),
      standing: request.standing
        ? {
            designCases: request.standing.designCases,
            designFailures: request.standing.designFailures.join(', '),
            releaseFailures: request.standing.releaseFailures.join(', '),
            fixesRequired: request.standing.fixesRequired,
          }
        : null,
    }),
  };
}

/** Indented JSON with lists of plain values kept on one line: readable, and not three tokens a case id. */
const pretty = (value: unknown): string =>
  JSON.stringify(value, null, 2).replace(/\[\n\s*([^[\]{}]*?)\n\s*\]/g, (_, inner: string) => `[${inner.split(/,\n\s*/).join(', ')}]`);

const ATTRIBUTED = { reverted: 'reverting this edit alone undoes the regression', alone: 'this edit alone reproduces the regression', unexplained: 'no single edit explains it: several together, or noise' } as const;

/** Which edit broke a case, in words: the edits and how the gate found it. */
function brokenByText(b: NonNullable<RcHistoryEntry['brokenBy']>[number]): string {
  return b.edits.length === 0 ? ATTRIBUTED.unexplained : `${b.edits.join(', ')} (${ATTRIBUTED[b.evidence]})`;
}

/** An earlier RC as the diagnostician and the synthesizer read it. */
function rcView(entry: RcHistoryEntry) {
  return {
    iteration: entry.iteration,
    decision: entry.decision,
    targets: entry.targets,
    rationale: entry.rationale,
    gate: entry.reasons,
    edited: entry.edited,
    scope: entry.scope,
    /** case id → the symptom it failed with before the RC */
    fixed: Object.fromEntries(entry.fixed.map((f) => [f.caseId, f.symptom])),
    /** case id → the symptom it failed with under the RC */
    broken: Object.fromEntries(entry.broken.map((b) => [b.caseId, b.symptom])),
    /** case id → the edit it broke under, found by reverting each edit alone on fresh trials (when the gate attributed them) */
    ...(entry.brokenBy ? { brokenBy: Object.fromEntries(entry.brokenBy.map((b) => [b.caseId, brokenByText(b)])) } : {}),
  };
}

/** Whether the diagnosed agent is a crew: its sampled records' traces name agents, or its gradient records an orchestrator. */
function diagnosesCrew(request: DiagnosisScriptRequest): boolean {
  const traceOf = (record: unknown): readonly TraceEvent[] => {
    const trace = (record as { trace?: unknown } | null)?.trace;
    return Array.isArray(trace) ? (trace as TraceEvent[]) : [];
  };
  return request.sampleRecords.some((r) => isCrewTrace(traceOf(r))) || (request.gradient?.components.some((c) => c.kind === 'orchestrator') ?? false);
}

/**
 * Whether the diagnostician may propose label merges: a merge needs two labels of the taxonomy.
 * The answer's schema has the "labelMerges" field exactly then, and the prose asks for it exactly then.
 */
export const proposesMerges = (request: Pick<DiagnosisScriptRequest, 'taxonomy'>): boolean => request.taxonomy.length >= 2;

export function diagnosticianPrompt(request: DiagnosisScriptRequest, facts: RoleFacts): RolePrompt {
  return {
    system: [render('diagnostician-system', { facts, crew: diagnosesCrew(request), merges: proposesMerges(request), limits: { timeoutSeconds: Math.round(request.limits.timeoutMs / 1000), memoryMb: request.limits.memoryMb } })],
    user: render('diagnostician-user', {
      recordSchema: request.recordSchema,
      taxonomy: request.taxonomy,
      sampleRecords: request.sampleRecords.map((r) => JSON.stringify(r)).join('\n'),
      previousReport: request.previousReport ? pretty(request.previousReport) : null,
      lastRc: request.lastRc ? pretty(rcView(request.lastRc)) : null,
      caseChanges: request.caseChanges,
      previousScript: request.previousScript,
      repair: request.repair,
      gradient: request.gradient ? pretty(gradientView(request.gradient)) : null,
    }),
  };
}

export function synthesizerPrompt(request: SynthesisRequest, facts: RoleFacts): RolePrompt {
  // Each statement about the blueprint follows its runtime and its manifest: a command agent has
  // no prompt template or wrappers (and may not be Node at all), a crew has an orchestrator and members.
  const shape = blueprintShape(request);
  const components = blueprintComponents(request.files, request.blueprintRoot);
  return {
    system: [render('synthesizer-system', { facts, root: request.blueprintRoot, blueprint: request.blueprint, ...shape, vocabulary: request.taxonomy.length > 0 }), render('task', { ...request.task, wrappers: shape.toolLoop || shape.crew })],
    user: render('synthesizer-user', {
      components: components.map((c) => ({ id: c.id, files: c.files.join(', ') || '(named only by traces)' })),
      taxonomy: request.taxonomy,
      blueprintName: request.blueprintName,
      files: request.files,
      diagnosis: pretty(request.diagnosis),
      evidence: {
        budgetTokens: request.evidence.budgetTokens,
        usedTokens: request.evidence.usedTokens,
        shown: request.evidence.symptoms.some((s) => s.cases.length > 0),
        symptoms: pretty(request.evidence.symptoms),
      },
      history: request.history.length === 0 ? 'none: this is the first release candidate' : pretty(request.history.map(rcView)),
      repair: request.repair,
      gradient: request.gradient ? pretty(gradientView(request.gradient)) : null,
    }),
  };
}

/** A file a command's "command" runs, or a program file, that Node.js runs: JavaScript or TypeScript. */
const JS_FILE = /\.(?:[cm]?js|[cm]?ts)$/;

/**
 * What the synthesizer's request says of the blueprint at hand, from its runtime and its
 * manifest: the prompt files (tool-loop, crew), the members (crew), the command line and whether
 * it is a Node.js program (command: the Node facts are stated only then).
 */
function blueprintShape(request: SynthesisRequest) {
  const runtime = request.blueprint.runtime;
  const text = request.files.find((f) => f.path === `${request.blueprintRoot}/blueprint.json`)?.content ?? '{}';
  let manifest: { prompt?: unknown; command?: unknown; orchestrator?: { prompt?: unknown }; members?: Array<{ name?: unknown; prompt?: unknown }> } = {};
  try {
    manifest = JSON.parse(text) as typeof manifest;
  } catch {
    manifest = {};
  }
  const command = Array.isArray(manifest.command) ? manifest.command.filter((w): w is string => typeof w === 'string') : [];
  const program = request.files.filter((f) => f.path.startsWith(`${request.blueprintRoot}/`) && !f.path.endsWith('.hbs') && !f.path.endsWith('/blueprint.json'));
  const commandIsNode = /(^|\/)(node|tsx|npx)$/.test(command[0] ?? '') || JS_FILE.test(command[0] ?? '');
  const nodeProgram = runtime === 'command' && (commandIsNode || (program.length > 0 && program.every((f) => JS_FILE.test(f.path))));
  const str = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);
  return {
    toolLoop: runtime === 'tool-loop',
    crew: runtime === 'crew',
    command: runtime === 'command',
    // Wrappers are TypeScript on Node, so tool-loop and crew authors need the Node facts; a command agent only when it is a Node program.
    nodeCode: runtime !== 'command' || nodeProgram,
    program: runtime === 'command' ? (command.length > 0 ? command.map((w) => JSON.stringify(w)).join(' ') : '(none given)') : null,
    prompt: runtime === 'crew' ? str(manifest.orchestrator?.prompt, 'system.hbs') : str(manifest.prompt, 'system.hbs'),
    members: runtime === 'crew' ? (manifest.members ?? []).map((m) => ({ name: str(m.name, '?'), prompt: str(m.prompt, '?') })) : [],
  };
}

/**
 * The gradient records as a model reads them: per component, what it fulfilled, the errors it
 * introduced (case and message) and the missing sub-tasks, without the pointers (they stay in
 * git for whoever checks a claim).
 */
function gradientView(gradient: GradientDocument) {
  return gradient.components
    .filter((c) => c.fulfilled.length + c.introducedErrors.length + c.missing.length + c.claims.length > 0)
    .map((c) => ({
      component: c.component,
      fulfilled: c.fulfilled,
      introducedErrors: c.introducedErrors.slice(0, 10).map((e) => `${e.caseId}#${e.trial}: ${e.message}`),
      missing: c.missing.map((m) => `${m.text} (cases ${m.caseIds.join(', ')})`),
      ...(c.claims.length > 0 ? { claims: c.claims.map((claim) => `${claim.field}: ${claim.text}`) } : {}),
    }));
}
