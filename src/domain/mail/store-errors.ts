// The words for a store failure, in the one place that turns a StoreError into text: the engine's
// notices use them whole, the Pi texts for every kind but a bare system call.
import type { StoreError } from "../../ports/shared/store-error.js";
import { sanitizeField } from "../shared/text/sanitize.js";
import { labelFieldCharsMax } from "./limits.js";
import { describePathSafety } from "./path-safety.js";

export function describeStoreError(error: StoreError): string {
  switch (error.kind) {
    case "io":
      return error.message;
    case "not-a-folder":
      return `${sanitizeField(error.path, labelFieldCharsMax)} is not a real folder`;
    case "foreign-owner":
    case "open-ancestor":
    case "root-replaced":
      return describePathSafety(error);
    default: {
      const never: never = error;
      return never;
    }
  }
}
