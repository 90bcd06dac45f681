// What a crew's orchestrator and members exchange, shared by the crew runtime (which writes it)
// and the mock engine (which reads it the way a model would).

/** The one argument the orchestrator passes a member: BOAD's context parameter. */
export const MEMBER_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    context: {
      type: 'string',
      description: 'Everything this member needs for its part. It sees nothing else of the conversation unless its view says so.',
    },
  },
  required: ['context'],
  additionalProperties: false,
} as const;

/** The headings of a member's first message, one per part of its view. */
export const VIEW_HEADINGS = {
  context: 'Context from the orchestrator:',
  request: "The user's request so far:",
  member: (name: string) => `Results of ${name}:`,
} as const;

/** Whether a tool offered to a model is a crew member (its only argument is the context). */
export function isMemberTool(tool: { readonly inputSchema: Record<string, unknown> }): boolean {
  const properties = tool.inputSchema.properties as Record<string, unknown> | undefined;
  return properties !== undefined && Object.keys(properties).length === 1 && 'context' in properties;
}

/** The sections of a member's first message, by heading (text up to the next heading). */
export function viewSections(text: string): Map<string, string> {
  const sections = new Map<string, string>();
  const headings = [...text.matchAll(/^(Context from the orchestrator:|The user's request so far:|Results of [a-z][a-z0-9_-]*:)$/gm)];
  headings.forEach((match, index) => {
    const start = (match.index ?? 0) + match[0].length;
    const end = headings[index + 1]?.index ?? text.length;
    sections.set(match[0], text.slice(start, end).trim());
  });
  return sections;
}
