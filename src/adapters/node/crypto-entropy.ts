import type { Entropy } from "../../ports/shared/entropy.js";
import { nodeCrypto } from "./builtins.js";

/** node:crypto's randomUUID is a lower-case RFC 4122 version 4 UUID from the OS CSPRNG. */
export const cryptoEntropy: Entropy = {
  uuid: () => nodeCrypto().randomUUID(),
};
