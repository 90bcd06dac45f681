/** The record format a diagnosis script reads; given verbatim to the diagnostician model. */
export const RECORD_SCHEMA_DOC = `Each line of RECORDS.jsonl is one JSON object (one case-trial):
{
  "caseId": string, "trial": number,
  "status": "ok" | "infra_error",        // infra_error records have no verdict: never count them as failures
  "pass": boolean | null,                // final pass: the scorer's verdict when there is one, else the critic's
  "scorer": null | { "pass": boolean, "checks": [{ "scorer": string, "pass": boolean, "code"?: string, "message"?: string }] },
  "critic": null | { "pass": boolean, "label": string, "description": string },   // label: the symptom ("ok" when passing)
  "output": any,                          // the agent's final output
  "trace": [                              // what happened, in order
    { "type": "start", "caseId": string, "trial": number }
    | { "type": "message", "role": "user" | "assistant", "text": string }
    | { "type": "tool_call", "id": string, "name": string, "args": any }
    | { "type": "tool_result", "id": string, "ok": boolean, "result"?: any, "error"?: string }
    | { "type": "llm", "model": string, "inputTokens"?: number, "outputTokens"?: number, "latencyMs"?: number, "stopReason"?: string }
    | { "type": "error", "kind": "agent" | "infra", "message": string }
    | { "type": "final", "output": any }
  ]
}
The script runs as: node script.mjs RECORDS.jsonl REPORT.json (an ES module; only node: built-ins).
It may read RECORDS.jsonl and write REPORT.json, nothing else: no network, no environment
variables, no child processes. REPORT.json must be exactly this (every "label" is a label of
the taxonomy; unknown fields are refused):
{
  "summary": string,
  "totals": { "records": number, "failing": number, "infraErrors": number },
  "dominantSymptoms": [{                 // most frequent first
    "label": string, "count": number, "share": number (0..1 of failing), "description": string,
    "subPatterns"?: [{ "name": string (snake_case), "description": string, "caseIds": string[] }]   // finer patterns under this label
  }],
  "patterns": [{ "label": string, "pattern": string, "count": number, "caseIds": string[] }],   // trace patterns that go with a symptom
  "representativeCases": [{ "caseId": string, "label": string, "description": string }],
  "affectedSurface": [{ "label": string, "caseIds": string[] }],   // which cases each symptom touches
  "notes"?: string[]                     // anything else the release engineer should read
}`;
