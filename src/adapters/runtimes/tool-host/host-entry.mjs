// The tool host: runs a blueprint's tool wrappers and the task's environment in a sandboxed
// child process, driven over IPC by the tool-loop runtime. It is started through
// sandbox-entry.mjs, so it sees no environment variables, no network, and only its bundles.
//
// One host serves many case-trials, one after another and at the same time (tool-host/pool.ts):
// each is a session with its own environment (createEnvironment(case)), user and ctx. The
// modules themselves (the wrappers, the environment module) are loaded once per host, so what
// they keep at module level is shared by every session of the host.
// argv: WRAPPERS_BUNDLE ENVIRONMENT_BUNDLE|-
const [wrappersPath, environmentPath] = process.argv.slice(2);

const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;
const sessions = new Map();
let tools = new Map();
let environmentModule = null;

function plain(value) {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

function errorText(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Memory allocated off the V8 heap (Buffers, typed arrays) fails under the data-segment limit
 * with a RangeError the wrapper could catch and report as an ordinary tool error. It is the
 * memory limit all the same: the host says so on stderr (the words agentdevel reads as "killed
 * at the memory limit") and ends, as it would have had the heap itself run out.
 */
function endIfOutOfMemory(error) {
  const text = errorText(error);
  if (!(error instanceof RangeError) || !/allocation failed|Array buffer allocation|Invalid typed array length|Cannot allocate memory|out of memory/i.test(text)) return;
  process.stderr.write(`FATAL ERROR: Allocation failed outside the heap: ${text}\n`);
  process.exit(134);
}

async function init() {
  const bundle = await import(new URL(`file://${wrappersPath}`).href);
  const specs = [];
  /** The file of each tool name, so a second definition names both wrappers. */
  const definedIn = new Map();
  // Each wrapper is a lazy module in the bundle, loaded here one by one, so a wrapper that
  // throws while it is imported is named.
  for (const [file, load] of bundle.default) {
    let mod;
    try {
      mod = await load();
    } catch (error) {
      throw new Error(`${file}: throws when imported: ${errorText(error)}`);
    }
    const wrapper = mod.default ?? mod;
    const problems = [];
    if (typeof wrapper.name !== 'string' || !toolNamePattern.test(wrapper.name)) problems.push('"name" must be 1-64 letters, digits, "_" or "-"');
    if (typeof wrapper.description !== 'string' || wrapper.description.length === 0) problems.push('"description" must be a non-empty string');
    if (!wrapper.inputSchema || typeof wrapper.inputSchema.safeParse !== 'function') problems.push('"inputSchema" must be a zod schema');
    if (typeof wrapper.run !== 'function') problems.push('"run" must be a function (args, ctx)');
    if (problems.length > 0) throw new Error(`${file}: ${problems.join('; ')}`);
    const first = definedIn.get(wrapper.name);
    if (first !== undefined) throw new Error(`${file}: a tool named "${wrapper.name}" is already defined by ${first}; each wrapper needs its own name`);
    tools.set(wrapper.name, wrapper);
    definedIn.set(wrapper.name, file);
    let inputSchema;
    try {
      inputSchema = bundle.toJSONSchema(wrapper.inputSchema, { io: 'input', unrepresentable: 'any' });
    } catch (error) {
      throw new Error(`${file}: inputSchema cannot be expressed as JSON Schema: ${errorText(error)}`);
    }
    delete inputSchema.$schema;
    specs.push({ name: wrapper.name, description: wrapper.description, inputSchema });
  }
  if (environmentPath && environmentPath !== '-') {
    environmentModule = await import(new URL(`file://${environmentPath}`).href);
    if (typeof environmentModule.createEnvironment !== 'function') {
      throw new Error('the task environment must export createEnvironment(case)');
    }
  }
  // Without a task environment a session holds nothing: the client opens, answers and ends
  // such sessions itself, and only tool calls travel (see client.ts).
  return { tools: specs, stateless: environmentModule === null };
}

function session(id) {
  const found = sessions.get(id);
  if (!found) throw new Error(`no open session ${id}`);
  return found;
}

const operations = {
  init: () => init(),
  open: async ({ session: id, case: caseData }) => {
    const environment = environmentModule ? await environmentModule.createEnvironment(caseData) : null;
    sessions.set(id, { environment });
    const opening = environment?.user?.opening ? await environment.user.opening() : null;
    return { opening: opening ?? null };
  },
  call: async ({ session: id, name, args }) => {
    const { environment } = environmentModule === null ? { environment: null } : session(id);
    const wrapper = tools.get(name);
    if (!wrapper) return { ok: false, error: `unknown tool "${name}"` };
    const parsed = wrapper.inputSchema.safeParse(args ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
      return { ok: false, error: `invalid arguments: ${issues}` };
    }
    // The state before and after, when the task exposes it: a call that changed nothing is a
    // no-op step of the trace cost.
    const snapshot = async () => (environment?.state ? JSON.stringify(plain(await environment.state())) : null);
    const before = await snapshot();
    try {
      // Wrappers reach the environment only through ctx.env: the environment's API object.
      const result = await wrapper.run(parsed.data, { env: environment?.api ?? {} });
      const after = await snapshot();
      return { ok: true, result: plain(result), ...(before === null ? {} : { stateChanged: before !== after }) };
    } catch (error) {
      endIfOutOfMemory(error);
      const after = await snapshot();
      return { ok: false, error: errorText(error), ...(before === null ? {} : { stateChanged: before !== after }) };
    }
  },
  reply: async ({ session: id, text }) => {
    const { environment } = session(id);
    const reply = environment?.user?.reply ? await environment.user.reply(text) : null;
    if (reply !== null && reply !== undefined) return { reply };
    // The user has nothing more to say: the conversation is over, and the session ends in the
    // same answer (one exchange less per case-trial).
    return { reply: null, state: await end(id) };
  },
  close: async ({ session: id }) => ({ state: await end(id) }),
  // A case-trial that failed outside the host (its model call) leaves its session: it goes unread.
  discard: async ({ session: id }) => {
    sessions.delete(id);
    return null;
  },
};

async function end(id) {
  const { environment } = session(id);
  sessions.delete(id);
  return environment?.state ? plain(await environment.state()) : null;
}

// Answers finished in one turn of the event loop go back as one IPC message (one write, one
// wake-up of agentdevel), as the requests come: one message, or { batch: [...] }.
let outbox = [];
function answer(message) {
  if (outbox.length === 0) setImmediate(sendAnswers);
  outbox.push(message);
}
function sendAnswers() {
  const batch = outbox;
  outbox = [];
  process.send(batch.length === 1 ? batch[0] : { batch });
}

process.on('message', (message) => {
  for (const one of message.batch ?? [message]) void handle(one);
});

async function handle(message) {
  const { id, op, ...payload } = message;
  try {
    const handler = operations[op];
    if (!handler) throw new Error(`unknown operation ${op}`);
    const value = await handler(payload);
    answer({ id, ok: true, value });
  } catch (error) {
    endIfOutOfMemory(error);
    // An operation that throws ends its case-trial (the runtime makes it the agent's failure):
    // its session goes, so a host that serves many case-trials does not keep the dead ones.
    if (typeof payload.session === 'string') sessions.delete(payload.session);
    answer({ id, ok: false, error: errorText(error) });
  }
}
// The host serves agentdevel only: when the channel closes (agentdevel stopped or died), it ends.
process.on('disconnect', () => process.exit(0));
process.send({ id: 0, ok: true, value: 'ready' });
