// The queue's failures, as the coordinator and the workers tell them apart (the executor turns
// them into the command's errors: exit 3, or an infrastructure error of one case-trial).

/** Redis could not be reached (at start), or was lost for longer than the grace period (mid-run). */
export class QueueUnreachable extends Error {
  constructor(
    readonly shown: string,
    reason: string,
  ) {
    super(`the queue at ${shown} ${reason}`);
    this.name = 'QueueUnreachable';
  }
}

/** A job BullMQ gave up on (its attempts, or its stalls, are used up), or whose results were refused too often. */
export class JobGaveUp extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'JobGaveUp';
  }
}

/** No worker answered any job for longer than the idle limit. */
export class NoWorkerAnswered extends Error {
  constructor(readonly idleMs: number) {
    super(`no worker took or finished a case-trial for ${Math.round(idleMs / 1000)} s`);
    this.name = 'NoWorkerAnswered';
  }
}

/** A job a worker must not retry: it cannot succeed anywhere (a malformed job, a job of another version). */
export class JobRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobRefused';
  }
}
