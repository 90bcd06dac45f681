import { MOCK_MODEL } from './models.ts';
import { roles, type Role } from './ports/model.ts';

/**
 * Where a run's results come from. They are simulated only when the mock engine played the
 * agent: a `command` agent is the user's own program whatever the models say, and a mock critic
 * is the deterministic heuristic critic, which grades real traces.
 */
export interface Provenance {
  readonly simulated: boolean;
  /** The roles that ran on the mock engine (the agent only when the runtime asks a model). */
  readonly mockRoles: readonly Role[];
}

export function provenanceOf(models: Readonly<Record<Role, string>>, agentAsksModel: boolean): Provenance {
  const mockRoles = roles.filter((role) => models[role] === MOCK_MODEL && (role !== 'agent' || agentAsksModel));
  return { simulated: mockRoles.includes('agent'), mockRoles };
}
