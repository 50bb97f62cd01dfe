/** One finding about a workflow file: where (JSON pointer and line:column), what, and what to write instead. */
export interface Diagnostic {
  readonly severity: 'error' | 'warning';
  /** JSON pointer of the offending field ('' for the whole document). */
  readonly pointer: string;
  /** The field's name, when the finding is about one field. */
  readonly field?: string;
  readonly line: number;
  readonly col: number;
  readonly message: string;
  /** What to write instead. */
  readonly fix?: string;
}

/** `file:line:col: error: field `max_turns` at /nodes/1/config/max_turns: … — fix: …` */
export function formatDiagnostic(
  file: string,
  d: Diagnostic,
  paint?: { paint(style: 'red' | 'yellow', text: string): string },
): string {
  const severity = paint ? paint.paint(d.severity === 'error' ? 'red' : 'yellow', d.severity) : d.severity;
  const what =
    d.field !== undefined ? `field \`${d.field}\` at ${d.pointer || '/'}` : `at ${d.pointer || '/'}`;
  return `${file}:${d.line}:${d.col}: ${severity}: ${what}: ${d.message}${d.fix ? ` — fix: ${d.fix}` : ''}`;
}
