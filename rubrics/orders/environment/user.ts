// A scripted customer. It answers the few kinds of question an agent asks in this domain:
// who are you (email), and do you confirm (yes or no, as the case says). Anything else ends
// the conversation, like a customer who has what they came for.

export interface UserScript {
  opening: string;
  email: string;
  /** Whether the customer agrees when asked to confirm a consequential action. */
  confirms: boolean;
}

const MAX_REPLIES = 8;

export function simulatedUser(script: UserScript) {
  let replies = 0;
  return {
    opening: (): string => script.opening,
    reply(agentText: string): string | null {
      if (!agentText.includes('?') || replies >= MAX_REPLIES) return null;
      replies += 1;
      if (/e-?mail/i.test(agentText)) return `Sure, it's ${script.email}.`;
      if (/confirm|proceed|go ahead|shall i|should i|\(yes\/no\)/i.test(agentText)) {
        return script.confirms ? 'Yes, please go ahead.' : "No, please don't. I've changed my mind.";
      }
      return null;
    },
  };
}
