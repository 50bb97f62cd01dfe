/**
 * Delivers consecutive messages of one partition: all at once to the subscription's batch
 * handler; if that throws, one by one through `one` (the adapter's per-message path, with its
 * retries and dead-lettering). Returns how many messages are settled and may be committed: all of
 * them, unless `one` reports a message abandoned (the consumer died or lost the partition), in
 * which case nothing from that message on may be committed.
 */
export async function deliverBatch<M>(args: {
  readonly messages: readonly M[];
  readonly batch: (messages: readonly M[]) => Promise<void>;
  readonly one: (message: M) => Promise<boolean>;
}): Promise<number> {
  try {
    await args.batch(args.messages);
    return args.messages.length;
  } catch {
    // The per-message path below retries, reports and dead-letters; the batch error adds nothing.
  }
  let settled = 0;
  for (const message of args.messages) {
    if (!(await args.one(message))) break;
    settled += 1;
  }
  return settled;
}
