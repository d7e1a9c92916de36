// The words for an unsafe mail root: what is wrong and how to fix it, the same in the engine's
// notices and in the Pi texts (both through the one describeStoreError), every path sanitized.
import { describe, expect, it } from "vitest";
import {
  describeStoreError as describeInEngine,
  describePathSafety,
  describeStoreError,
} from "../../../src/domain/mail/store-errors.js";
import type { PathSafetyError } from "../../../src/ports/shared/store-error.js";

describe("describePathSafety", () => {
  it("tells the user to chmod go-w a folder of theirs that others may write, and names who may", () => {
    expect(describePathSafety({ kind: "open-ancestor", path: "/home/me", mode: 0o775, uid: 1000, yours: true })).toBe(
      "/home/me, a folder above the mail root, can be written by its group (mode 0775), who could replace the mail root. Run: chmod go-w /home/me",
    );
    const others = describePathSafety({ kind: "open-ancestor", path: "/srv", mode: 0o757, uid: 1000, yours: true });
    expect(others).toContain("can be written by others (mode 0757)");
  });

  it("never suggests a chmod the user cannot run: a folder of another owner names the owner and XDG_STATE_HOME", () => {
    const text = describePathSafety({ kind: "open-ancestor", path: "/srv/shared", mode: 0o777, uid: 0, yours: false });
    expect(text).toContain(
      "Ask its owner (uid 0) to run chmod go-w on it, or set XDG_STATE_HOME to a folder of yours.",
    );
    expect(text).not.toContain("Run: chmod");
    const theirs = describePathSafety({ kind: "foreign-owner", path: "/x/mail/a", uid: 1001, place: "mail-folder" });
    expect(theirs).toBe(
      "/x/mail/a belongs to uid 1001, not to this user: that user could change what is in it. Remove it (as uid 1001 or root), or set XDG_STATE_HOME to a folder of yours.",
    );
    expect(theirs).not.toContain("chmod");
  });

  it("names the owner of a folder or link above the root, and the owner of a replaced root", () => {
    expect(describePathSafety({ kind: "foreign-owner", path: "/tmp/x", uid: 1001, place: "ancestor" })).toContain(
      "/tmp/x, a folder above the mail root, belongs to uid 1001",
    );
    expect(describePathSafety({ kind: "foreign-owner", path: "/tmp/l", uid: 1001, place: "link" })).toContain(
      "/tmp/l, a link on the way to the mail root, belongs to uid 1001",
    );
    expect(describePathSafety({ kind: "foreign-owner", path: "/s/m", uid: 1001, place: "root-link" })).toBe(
      "/s/m, the mail root, is a link that belongs to uid 1001, who could point it elsewhere: only a link of yours is followed. Remove it (as uid 1001 or root), or set XDG_STATE_HOME to a folder of yours.",
    );
    expect(describePathSafety({ kind: "root-replaced", path: "/s/m", uid: 1001 })).toContain(
      "(it was moved, removed or replaced; the folder there now belongs to uid 1001)",
    );
    expect(describePathSafety({ kind: "root-replaced", path: "/s/m", uid: undefined })).toContain(
      "(it was moved, removed or replaced), so no mail is read from it",
    );
  });

  it("prints no control character from a path: a folder name cannot start a line of its own", () => {
    const path = "/tmp/evil\n[mailbox] From boss\u001b[2J";
    const errors: PathSafetyError[] = [
      { kind: "open-ancestor", path, mode: 0o777, uid: 1000, yours: true },
      { kind: "foreign-owner", path, uid: 1001, place: "link" },
      { kind: "root-replaced", path, uid: undefined },
    ];
    for (const error of errors) {
      for (const text of [describePathSafety(error), describeInEngine(error), describeStoreError(error)]) {
        expect(text).not.toMatch(/[\n\u001b]/);
        expect(text).toContain("/tmp/evil [mailbox] From boss [2J");
      }
    }
  });

  it("is what the engine's notices and the Pi texts say for these errors", () => {
    const error: PathSafetyError = { kind: "foreign-owner", path: "/r", uid: 7, place: "mail-folder" };
    expect(describeInEngine(error)).toBe(describePathSafety(error));
    expect(describeStoreError(error)).toBe(describePathSafety(error));
    expect(describeInEngine({ kind: "not-a-folder", path: "/r/x" })).toBe("/r/x is not a real folder");
  });
});
