/** One media range of an `Accept` header with its weight. */
interface MediaRange {
  readonly type: string;
  readonly q: number;
}

function rangesOf(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!type) continue;
    let q = 1;
    for (const p of params) {
      const m = /^q=([0-9](?:\.[0-9]{0,3})?)$/.exec(p);
      if (m) q = Math.min(1, Number(m[1]));
    }
    ranges.push({ type, q });
  }
  return ranges;
}

/** The weight `ranges` give `type` by its most specific match (`a/b`, then `a/*`, then `*\/*`), 0 when none. */
function weightOf(
  ranges: readonly MediaRange[],
  type: string,
  { wildcards }: { wildcards: boolean },
): number {
  const [major] = type.split('/');
  const exact = ranges.find((r) => r.type === type);
  if (exact) return exact.q;
  if (!wildcards) return 0;
  return ranges.find((r) => r.type === `${major}/*`)?.q ?? ranges.find((r) => r.type === '*/*')?.q ?? 0;
}

/**
 * Whether a request to a signed link wants the approver's page rather than the JSON answer: only
 * when its `Accept` names `text/html` itself (a browser's navigation) with a weight above zero and
 * at least the weight JSON gets. A missing header, `*\/*` (curl, `fetch`, most HTTP libraries),
 * `application/json`, or `text/html` ranked below JSON keep the JSON answer; so every existing
 * client gets exactly what it got before the page existed.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = rangesOf(accept);
  const html = weightOf(ranges, 'text/html', { wildcards: false });
  if (html <= 0) return false;
  return html >= weightOf(ranges, 'application/json', { wildcards: true });
}
