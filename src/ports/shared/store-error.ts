// The errors every store returns: a failed system call, a path that must be a folder, a path
// another user could control. Each context adds its own beside these.
export type StoreError =
  /** A system call failed; `code` is the errno name (ENOENT, EACCES, …). */
  | { kind: "io"; op: string; path: string; code: string; message: string }
  /** A path that must be a real folder is a symlink or something else. */
  | { kind: "not-a-folder"; path: string }
  | PathSafetyError;

/** Why the mail root, or a folder in it, is not safe from other users. */
export type PathSafetyError =
  /** A folder or link on the way to the mail root, or a folder in it, owned by user `uid`, who could
   * replace the mail root or what is in it. Above the root (links on the way too) root's and this
   * user's are fine; the root and every folder in it must be this user's. */
  | { kind: "foreign-owner"; path: string; uid: number; place: "ancestor" | "link" | "root-link" | "mail-folder" }
  /** A folder above the mail root that group or others may write (`mode`: its permission bits), who
   * could rename the root away and put theirs in its place. `uid` owns it; `yours`: this user does. */
  | { kind: "open-ancestor"; path: string; mode: number; uid: number; yours: boolean }
  /** The mail root is no longer the folder openRoot opened (moved, removed or replaced); `uid` owns
   * what is at its path now, undefined when nothing is. */
  | { kind: "root-replaced"; path: string; uid: number | undefined };
