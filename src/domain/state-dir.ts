/** The folder of agentdevel's own state in a workspace (the store, the lock, checkouts, builds); never committed. */
export const STATE_DIR = '.agentdevel';
