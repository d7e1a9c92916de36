/** Randomness: ids for envelopes and temp files. Seeded in the simulator. */
export interface Entropy {
  /** A random (version 4) UUID in lower case. */
  uuid(): string;
}
