// The words for a store failure, for both stores: what went wrong, and for a folder other users
// could change, the command or setting that fixes it. Each store names its own top folder and the
// setting that moves it; the sentences are the same. Every path is sanitized: a folder name can
// hold anything.
import type { PathSafetyError, StoreError } from "../../ports/shared/store-error.js";
import { sanitizeField } from "./text/sanitize.js";

/** How one store is named in the words. */
export interface StorePlace {
  /** Its top folder in a sentence: "the mail root". */
  root: string;
  /** The environment variable that puts it elsewhere: "XDG_STATE_HOME". */
  setting: string;
  /** What stops while its top folder is not the one opened: "no mail is read from it". */
  halted: string;
  /** Longest path shown. */
  pathCharsMax: number;
  /** Longest system message (errno, call and path) shown. */
  messageCharsMax: number;
}

export function describeStoreError(error: StoreError, place: StorePlace): string {
  switch (error.kind) {
    case "io":
      // The system's words (errno, call and path) or the adapter's (a dangling root names its fix);
      // they repeat a path, so they are sanitized like one.
      return sanitizeField(error.message, place.messageCharsMax);
    case "not-a-folder":
      return `${sanitizeField(error.path, place.pathCharsMax)} is not a real folder`;
    case "foreign-owner":
    case "open-ancestor":
    case "root-replaced":
      return describePathSafety(error, place);
    default: {
      const never: never = error;
      return never;
    }
  }
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, "0")}`;
}

function writers(mode: number): string {
  const group = (mode & 0o020) !== 0;
  const others = (mode & 0o002) !== 0;
  return group && others ? "group and others" : group ? "its group" : "others";
}

/** What is unsafe about the store's top folder, and what the user can do about it, in words. */
export function describePathSafety(error: PathSafetyError, place: StorePlace): string {
  const path = sanitizeField(error.path, place.pathCharsMax);
  switch (error.kind) {
    case "foreign-owner":
      return describeForeignOwner(path, error.uid, error.place, place);
    case "open-ancestor": {
      const fix = error.yours
        ? `Run: chmod go-w ${path}`
        : `Ask its owner (uid ${error.uid}) to run chmod go-w on it, or set ${place.setting} to a folder of yours.`;
      return `${path}, a folder above ${place.root}, can be written by ${writers(error.mode)} (mode ${octal(error.mode)}), who could replace ${place.root}. ${fix}`;
    }
    case "root-replaced": {
      const now = error.uid === undefined ? "" : `; the folder there now belongs to uid ${error.uid}`;
      return `${path} is no longer the folder this session opened at start (it was moved, removed or replaced${now}), so ${place.halted}. Check who can write the folders above it, then start the session again.`;
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
  where: "ancestor" | "link" | "root-link" | "mail-folder",
  place: StorePlace,
): string {
  const elsewhere = `set ${place.setting} to a folder of yours`;
  switch (where) {
    case "ancestor":
      return `${path}, a folder above ${place.root}, belongs to uid ${uid}, who could replace ${place.root}. Use another folder: ${elsewhere} that only you and root can change.`;
    case "link":
      return `${path}, a link on the way to ${place.root}, belongs to uid ${uid}, who could point it elsewhere. Remove it (as uid ${uid} or root), or ${elsewhere}.`;
    case "root-link":
      return `${path}, ${place.root}, is a link that belongs to uid ${uid}, who could point it elsewhere: only a link of yours is followed. Remove it (as uid ${uid} or root), or ${elsewhere}.`;
    case "mail-folder":
      return `${path} belongs to uid ${uid}, not to this user: that user could change what is in it. Remove it (as uid ${uid} or root), or ${elsewhere}.`;
    default: {
      const never: never = where;
      return never;
    }
  }
}
