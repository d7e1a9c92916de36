// The words for a mail root that other users could change: what is wrong, and the command or
// setting that fixes it. Every path is sanitized: a folder name can hold anything.
import type { PathSafetyError } from "../../ports/shared/store-error.js";
import { sanitizeField } from "../shared/text/sanitize.js";
import { labelFieldCharsMax } from "./limits.js";

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, "0")}`;
}

function writers(mode: number): string {
  const group = (mode & 0o020) !== 0;
  const others = (mode & 0o002) !== 0;
  return group && others ? "group and others" : group ? "its group" : "others";
}

/** What is unsafe about the mail root, and what the user can do about it, in words. */
export function describePathSafety(error: PathSafetyError): string {
  const path = sanitizeField(error.path, labelFieldCharsMax);
  switch (error.kind) {
    case "foreign-owner":
      return describeForeignOwner(path, error.uid, error.place);
    case "open-ancestor": {
      const fix = error.yours
        ? `Run: chmod go-w ${path}`
        : `Ask its owner (uid ${error.uid}) to run chmod go-w on it, or set XDG_STATE_HOME to a folder of yours.`;
      return `${path}, a folder above the mail root, can be written by ${writers(error.mode)} (mode ${octal(error.mode)}), who could replace the mail root. ${fix}`;
    }
    case "root-replaced": {
      const now = error.uid === undefined ? "" : `; the folder there now belongs to uid ${error.uid}`;
      return `${path} is no longer the folder this session opened at start (it was moved, removed or replaced${now}), so no mail is read from it. Check who can write the folders above it, then start the session again.`;
    }
    default: {
      const never: never = error;
      return never;
    }
  }
}

function describeForeignOwner(
  path: string,
  uid: number,
  place: "ancestor" | "link" | "root-link" | "mail-folder",
): string {
  const elsewhere = "set XDG_STATE_HOME to a folder of yours";
  switch (place) {
    case "ancestor":
      return `${path}, a folder above the mail root, belongs to uid ${uid}, who could replace the mail root. Use another folder: ${elsewhere} that only you and root can change.`;
    case "link":
      return `${path}, a link on the way to the mail root, belongs to uid ${uid}, who could point it elsewhere. Remove it (as uid ${uid} or root), or ${elsewhere}.`;
    case "root-link":
      return `${path}, the mail root, is a link that belongs to uid ${uid}, who could point it elsewhere: only a link of yours is followed. Remove it (as uid ${uid} or root), or ${elsewhere}.`;
    case "mail-folder":
      return `${path} belongs to uid ${uid}, not to this user: that user could change what is in it. Remove it (as uid ${uid} or root), or ${elsewhere}.`;
    default: {
      const never: never = place;
      return never;
    }
  }
}
