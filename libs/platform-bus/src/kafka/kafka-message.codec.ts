import type { IHeaders, KafkaMessage, Message } from 'kafkajs';
import { withTraceHeaders } from '@openwop/observability';
import type { IncomingMessage, OutgoingMessage } from '../bus.port';
import { copyHeaders, decodeJson, encodeJson } from '../shared/json.codec';

/** The Kafka record of a message; its headers gain the active W3C trace context unless they carry one. */
export function toKafkaMessage(message: OutgoingMessage): Message {
  if (typeof message.key !== 'string') throw new TypeError('message key must be a string');
  return {
    key: message.key,
    value: encodeJson(message.value),
    headers: copyHeaders(withTraceHeaders(message.headers)),
  };
}

/** The message as text, before its value is parsed (a value that is not JSON is dead-lettered). */
export interface RawMessage {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string;
  readonly text: string | null;
  readonly headers: Readonly<Record<string, string>>;
}

export function toRawMessage(topic: string, partition: number, message: KafkaMessage): RawMessage {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? '',
    text: message.value === null ? null : message.value.toString('utf8'),
    headers: decodeHeaders(message.headers),
  };
}

/** A fresh decoded copy per call (so a handler's mutation never reaches a retry). */
export function toIncoming(raw: RawMessage, attempt: number): IncomingMessage {
  return {
    topic: raw.topic,
    partition: raw.partition,
    offset: raw.offset,
    key: raw.key,
    value: raw.text === null ? null : decodeJson(raw.text),
    headers: { ...raw.headers },
    attempt,
  };
}

function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    // A repeated header arrives as an array: the last value wins.
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last !== undefined) decoded[name] = last.toString();
  }
  return decoded;
}
