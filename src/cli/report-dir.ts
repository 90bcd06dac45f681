/**
 * Where `gate` (a dry gate) and `report` write HTML reports unless told otherwise. Its own
 * module: `report` needs the folder, not the gate command and all it imports.
 */
export const DEFAULT_REPORT_DIR = '.agentdevel/reports';
