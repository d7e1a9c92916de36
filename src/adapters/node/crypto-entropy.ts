import { randomUUID } from "node:crypto";
import type { Entropy } from "../../ports/shared/entropy.js";

/** node:crypto's randomUUID is a lower-case RFC 4122 version 4 UUID from the OS CSPRNG. */
export const cryptoEntropy: Entropy = {
  uuid: () => randomUUID(),
};
