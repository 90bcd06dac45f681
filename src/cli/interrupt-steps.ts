// What a command wants done when it is interrupted (SIGINT, SIGTERM, SIGHUP) before the process
// exits: a worker hands the jobs it holds back to the queue; a command on a queue takes back the
// case-trials no worker has started. The steps run together, within a bound; a second signal, or
// the bound, ends the process whatever they are doing. Without a step the process exits at once,
// as it always did.
const steps = new Set<() => Promise<void>>();

/** Adds a step; returns the function that removes it. */
export function beforeInterruptExit(step: () => Promise<void>): () => void {
  steps.add(step);
  return () => steps.delete(step);
}

export const hasInterruptSteps = (): boolean => steps.size > 0;

/** Runs every step, for at most `boundMs`. Never rejects. */
export async function runInterruptSteps(boundMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled([...steps].map((step) => step())), new Promise((resolve) => (timer = setTimeout(resolve, boundMs)))]);
  clearTimeout(timer);
}
