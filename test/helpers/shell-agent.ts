// A noisy `command` agent as a POSIX shell script (a few milliseconds a case-trial, where node
// takes a tenth of a second): it answers a case's sum right with the case's chance in thousandths
// ("permille"), or the chance a line `case "$id" in …) chance=…;; esac` after the marker
// "# chances" gives this version. Its draws are seeded by AGENT_SEED, the trial number, the case
// and the script's own text (so a comment-only edit draws afresh). From the first fresh trial
// (number 3, after three records) on, it notes in AGENT_MARKER which version ran first; from the
// other version's first trial on, every trial of both passes AGENT_DROP thousandths less often.
export const SHELL_AGENT = `input=$(cat)
field() { printf '%s' "$input" | sed -n "s/.*\\"$1\\":\\"\\{0,1\\}\\([A-Za-z0-9]*\\).*/\\1/p"; }
id=$(field id); a=$(field a); b=$(field b); chance=$(field permille)
# chances
self=$(sha256sum agent.sh | cut -c1-16)
drop=0
if [ "$AGENTDEVEL_TRIAL" -ge 3 ]; then
  if [ ! -f "$AGENT_MARKER" ]; then echo "$self" > "$AGENT_MARKER"
  elif [ -f "$AGENT_MARKER.dropped" ] || [ "$(cat "$AGENT_MARKER")" != "$self" ]; then touch "$AGENT_MARKER.dropped"; drop=$AGENT_DROP; fi
fi
draw=$((0x$(printf '%s' "$AGENT_SEED:$AGENTDEVEL_TRIAL:$id:$self" | sha256sum | cut -c1-6) % 1000))
answer=$((a + b))
if [ "$draw" -ge $((chance - drop)) ]; then answer=$((answer + 1)); fi
printf '{"type":"final","output":{"answer":%s}}\\n' "$answer"
`;
