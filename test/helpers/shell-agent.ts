// Noisy `command` agents as POSIX shell scripts (a few milliseconds a case-trial, where node
// takes a tenth of a second). Each answers a case's sum right with the case's chance in
// thousandths ("permille"), or the chance a line `case "$id" in …) chance=…;; esac` after the
// marker "# chances" gives this version. Its draws are seeded by AGENT_SEED, the trial number,
// the case and the script's own text (so a comment-only edit draws afresh). The script must be
// the blueprint's agent.sh, run from the blueprint's folder.

/** Reads the case's fields and the script's own digest. */
const READ_CASE = `input=$(cat)
field() { printf '%s' "$input" | sed -n "s/.*\\"$1\\":\\"\\{0,1\\}\\([A-Za-z0-9]*\\).*/\\1/p"; }
id=$(field id); a=$(field a); b=$(field b); chance=$(field permille)
# chances
self=$(sha256sum agent.sh | cut -c1-16)
`;

/** A draw in [0, 1000) and the right answer. */
const DRAW = `draw=$((0x$(printf '%s' "$AGENT_SEED:$AGENTDEVEL_TRIAL:$id:$self" | sha256sum | cut -c1-6) % 1000))
answer=$((a + b))
`;

/**
 * Drift in the middle of a gate: from the first fresh trial (number 3, after three records) on,
 * it notes in AGENT_MARKER which version ran first; from the other version's first trial on,
 * every trial of both passes AGENT_DROP thousandths less often.
 */
export const SHELL_AGENT = `${READ_CASE}drop=0
if [ "$AGENTDEVEL_TRIAL" -ge 3 ]; then
  if [ ! -f "$AGENT_MARKER" ]; then echo "$self" > "$AGENT_MARKER"
  elif [ -f "$AGENT_MARKER.dropped" ] || [ "$(cat "$AGENT_MARKER")" != "$self" ]; then touch "$AGENT_MARKER.dropped"; drop=$AGENT_DROP; fi
fi
${DRAW}if [ "$draw" -ge $((chance - drop)) ]; then answer=$((answer + 1)); fi
printf '{"type":"final","output":{"answer":%s}}\\n' "$answer"
`;

/**
 * A provider that moved for every trial of a command: each passes AGENT_DRIFT thousandths more
 * often (less, when negative). A case whose line after "# chances" sets \`hide=1\` reports each
 * of its failures as an infrastructure error instead of answering.
 */
export const DRIFTING_SHELL_AGENT = `${READ_CASE}${DRAW}if [ "$draw" -ge $((chance + \${AGENT_DRIFT:-0})) ]; then
  if [ -n "$hide" ]; then printf '{"type":"error","kind":"infra","message":"upstream timed out"}\\n'; exit 0; fi
  answer=$((answer + 1))
fi
printf '{"type":"final","output":{"answer":%s}}\\n' "$answer"
`;
