export const simulationNote =
  'note: simulated results: the mock engine is a deterministic stand-in for a language model, not a model.';
