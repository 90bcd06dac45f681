import { zeroUsage, type DiagnosisScriptRequest, type ModelPort } from '../../src/domain/ports/model.ts';
import { createMockEngine } from '../../src/adapters/engines/mock/index.ts';

/** The mock engine with some roles replaced by scripted answers (an injected engine for stage tests). */
export function scriptedModel(overrides: Partial<ModelPort>): ModelPort {
  return { ...createMockEngine(), ...overrides };
}

/** A diagnostician that answers each request with the next script of the list (the last one repeats). */
export function scriptedDiagnostician(scripts: readonly string[]): Pick<ModelPort, 'writeDiagnosisScript'> & { requests: DiagnosisScriptRequest[] } {
  const requests: DiagnosisScriptRequest[] = [];
  return {
    requests,
    writeDiagnosisScript: async (request) => {
      requests.push(request);
      const script = scripts[Math.min(requests.length - 1, scripts.length - 1)] as string;
      return { value: { script }, usage: zeroUsage };
    },
  };
}
