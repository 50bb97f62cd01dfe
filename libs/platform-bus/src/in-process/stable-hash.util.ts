/** FNV-1a (32 bit) over the key's UTF-8 bytes: the same key always maps to the same partition. */
export function partitionOf(key: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  }
  return hash % partitions;
}
