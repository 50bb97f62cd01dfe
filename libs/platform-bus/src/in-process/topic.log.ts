import { PartitionLog, type StoredRecord } from './partition.log';
import { partitionOf } from './stable-hash.util';

/** A topic: `count` partitions; a record goes to the partition its key hashes to. */
export class TopicLog {
  readonly partitions: readonly PartitionLog[];

  constructor(
    readonly name: string,
    count: number,
  ) {
    this.partitions = Array.from({ length: count }, () => new PartitionLog());
  }

  partition(index: number): PartitionLog {
    const log = this.partitions[index];
    if (!log) throw new RangeError(`${this.name} has no partition ${index}`);
    return log;
  }

  append(record: StoredRecord): void {
    this.partition(partitionOf(record.key, this.partitions.length)).append(record);
  }
}
