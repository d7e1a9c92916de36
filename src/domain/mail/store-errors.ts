// The words for a store failure: the one place that turns a StoreError into text, for the engine's
// notices and the Pi texts alike. Every path in it is sanitized: a peer can name a file anything.
import type { StoreError } from "../../ports/shared/store-error.js";
import { sanitizeField } from "../shared/text/sanitize.js";
import { labelFieldCharsMax, noticeCharsMax } from "./limits.js";
import { describePathSafety } from "./path-safety.js";

export function describeStoreError(error: StoreError): string {
  switch (error.kind) {
    case "io":
      // The system's words (errno, call and path) or the adapter's (a dangling root names its fix);
      // they repeat a path, so they are sanitized like one.
      return sanitizeField(error.message, noticeCharsMax);
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
