// A `command` agent: it reads one case as JSON on stdin (never what grades it: "expected" and the rest) and writes
// trace events as JSON lines on stdout. The last "final" event is its output. Replace it with
// your own agent, in any language; keep the protocol.
let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const testCase = JSON.parse(input);
  const emit = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);
  emit({ type: 'start' });
  emit({ type: 'message', role: 'user', text: testCase.question });
  const match = /(-?\d+(?:\.\d+)?)\s*([-+*/])\s*(-?\d+(?:\.\d+)?)/.exec(testCase.question);
  if (!match) {
    emit({ type: 'error', kind: 'agent', message: 'no arithmetic in the question' });
    emit({ type: 'final', output: { answer: null } });
    return;
  }
  const [, a, op, b] = match;
  emit({ type: 'tool_call', id: 'calc-1', name: 'calculator', args: { a: Number(a), op, b: Number(b) } });
  const answer = { '+': (x, y) => x + y, '-': (x, y) => x - y, '*': (x, y) => x * y, '/': (x, y) => x / y }[op](Number(a), Number(b));
  emit({ type: 'tool_result', id: 'calc-1', ok: true, result: answer });
  emit({ type: 'message', role: 'assistant', text: `The answer is ${answer}.` });
  emit({ type: 'final', output: { answer } });
});
