// Work that must happen however agentdevel ends: a normal exit, an error, or SIGINT/SIGTERM
// (the CLI turns those into process.exit). Hooks run synchronously, last registered first, like
// nested `finally` blocks: a checkout made under the lock is removed before the lock goes.

const hooks: Array<() => void> = [];
let installed = false;

function runHooks(): void {
  for (let hook = hooks.pop(); hook; hook = hooks.pop()) {
    try {
      hook();
    } catch (error) {
      // Exiting anyway: say what was left behind, and let the next command clean it up.
      process.stderr.write(`agentdevel: a cleanup at exit failed: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}

/** Registers a synchronous cleanup for process exit; returns the call that cancels it. */
export function atExit(hook: () => void): () => void {
  if (!installed) {
    installed = true;
    process.on('exit', runHooks);
  }
  hooks.push(hook);
  return () => {
    const index = hooks.lastIndexOf(hook);
    if (index >= 0) hooks.splice(index, 1);
  };
}
