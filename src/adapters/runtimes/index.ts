import type { ModelPort } from '../../domain/ports/model.ts';
import type { LoadedBlueprint } from '../blueprint/load.ts';
import type { RuntimeKind } from '../../domain/blueprint-manifest.ts';
import { startCommand } from './command.ts';
import { startCrew } from './crew.ts';
import type { Runtime } from '../../domain/ports/runtime.ts';
import { startToolLoop } from './tool-loop.ts';

export interface RuntimeContext {
  readonly blueprint: LoadedBlueprint;
  readonly environmentBundle: string | null;
  readonly model: ModelPort;
  readonly agentModel: string;
  readonly callTimeoutMs: number;
  readonly memoryMb: number;
  readonly passEnv: readonly string[];
  /** Paths of a case the grading reads (`caseGradingPaths`): the agent never sees them. */
  readonly gradingPaths: readonly string[];
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  /** Case-trials the run will have in flight at once (the command runtime sizes its spawners by it). */
  readonly concurrency?: number;
  /** False on a queue worker: grading (the expected state) happens on the coordinator. */
  readonly gradesHere?: boolean;
}

const starters: { [K in RuntimeKind]: (context: RuntimeContext) => Promise<Runtime> } = {
  'tool-loop': (context) => {
    const manifest = context.blueprint.manifest;
    if (manifest.runtime !== 'tool-loop') throw new Error('unreachable: runtime mismatch');
    return startToolLoop({ ...context, manifest });
  },
  command: async (context) => {
    const manifest = context.blueprint.manifest;
    if (manifest.runtime !== 'command') throw new Error('unreachable: runtime mismatch');
    return startCommand({ ...context, manifest });
  },
  crew: (context) => {
    const manifest = context.blueprint.manifest;
    if (manifest.runtime !== 'crew') throw new Error('unreachable: runtime mismatch');
    return startCrew({ ...context, manifest });
  },
};

export function startRuntime(context: RuntimeContext): Promise<Runtime> {
  return starters[context.blueprint.manifest.runtime](context);
}
