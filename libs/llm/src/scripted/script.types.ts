/** How a scripted reply is cut into deltas: words (with their trailing spaces), characters, or fixed-size pieces. */
export type ChunkSize = 'word' | 'char' | number;

/**
 * One row of a script. It applies when `agentId` (if set) equals the request's
 * `metadata.agentId` and `match` (if set) matches the request's last user message.
 */
export interface ScriptReply {
  readonly agentId?: string;
  /**
   * A case-insensitive substring of the last user message, or a regular expression written
   * `/pattern/flags` (the `g` and `y` flags are ignored, so matching keeps no state).
   */
  readonly match?: string;
  /**
   * The reply. A list is answered in turn: the n-th time this row answers one agent, it answers
   * item n (modulo the length), so every agent has its own cycle. `''` is an empty reply.
   */
  readonly reply: string | readonly string[];
}

/**
 * A script for the {@link ScriptedProvider}, written in code or in a JSON or YAML file.
 *
 * @example
 * ```yaml
 * tokenDelayMs: 20
 * chunkSize: word
 * default: "I have nothing to add."
 * replies:
 *   - agentId: critic
 *     match: /budget|cost/i
 *     reply: "That is too expensive."
 *   - agentId: optimist
 *     reply: ["Great idea!", "Even better.", ""]
 * ```
 */
export interface Script {
  readonly replies: readonly ScriptReply[];
  /** The reply when no row applies; without it such a request fails with `bad_request`. */
  readonly default?: string;
  /** Delay before each delta, in ms (default 0). */
  readonly tokenDelayMs?: number;
  /** Default `word`. */
  readonly chunkSize?: ChunkSize;
}
