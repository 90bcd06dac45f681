// The AgentDevel ablations (paper section 3.4, Table 3) as switches of `iterate`. Each one turns
// off or breaks one safeguard for an experiment, so an ablated iteration may run only on a
// scratch line: its releases can never become the real line's.

export const ablations = ['no-gate', 'no-diagnosis', 'critic-sees-blueprint'] as const;
export type Ablation = (typeof ablations)[number];

/** What each switch changes, in words, for the decision's reasons and the reports. */
export const ABLATION_TEXT: Record<Ablation, string> = {
  'no-gate': 'the gate is off: every valid RC is promoted; its flips are still computed and recorded',
  'no-diagnosis': 'no diagnosis script: the synthesizer reads the raw records, unaggregated',
  'critic-sees-blueprint': 'the critic is shown the blueprint (blindness deliberately broken)',
};

export function isAblation(value: string): value is Ablation {
  return (ablations as readonly string[]).includes(value);
}

/** The branch of a scratch line: never the real one, whatever the config calls the real one. */
export const SCRATCH_BRANCH_PREFIX = 'agentdevel/scratch/';

/**
 * A scratch line's name is one git ref component: of these characters, and none of what
 * `git check-ref-format` refuses in a component of them ("..", a trailing "." or ".lock").
 */
export const SCRATCH_NAME_PATTERN = /^(?!.*\.\.)(?!.*\.$)(?!.*\.lock$)[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
