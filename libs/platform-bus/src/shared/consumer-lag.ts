import { seedCounters } from '@openwop/observability';

/** Request/reply topics are per instance and short-lived: their lag is noise, not backlog. */
export function isReplyTopic(topic: string): boolean {
  return topic.includes('.internal.reply-');
}

/** Shows the group's dead-letter counters at 0 from its first subscription (reply groups left out). */
export function seedDeadLetterSeries(group: string, topics: readonly string[]): void {
  const series = topics.filter((t) => !isReplyTopic(t)).map((topic) => ({ topic, group }));
  if (series.length > 0) seedCounters({ deadLetters: series });
}
