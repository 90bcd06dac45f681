/** The one way code learns the time, so that tests and pure functions never read the clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
