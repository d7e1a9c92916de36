import { describe, expect, it } from "vitest";
import { messageTextCharsMax } from "../../../src/domain/bus/limits.js";
import { type Addressee, checkText, isBusKind, resolveRecipients } from "../../../src/domain/bus/sending-rules.js";

const self = { id: "me-id", label: "me" };
const sessions: Addressee[] = [
  { id: "me-id", label: "me", state: "active" },
  { id: "a-id", label: "alpha", state: "active" },
  { id: "b-id", label: "beta", state: "active" },
  { id: "g-id", label: "ghost", state: "gone" },
  { id: "old-id", label: "alpha", state: "gone" },
];

describe("kinds", () => {
  it("knows exactly message, event, ask and handoff", () => {
    expect(["message", "event", "ask", "handoff"].every(isBusKind)).toBe(true);
    expect(isBusKind("request")).toBe(false);
  });
});

describe("checkText", () => {
  it("refuses empty and blank text", () => {
    expect(checkText("")._unsafeUnwrapErr()).toEqual({ kind: "empty-text" });
    expect(checkText(" \n\t")._unsafeUnwrapErr()).toEqual({ kind: "empty-text" });
  });

  it("accepts exactly the cap in code points and refuses one more, without cutting", () => {
    expect(checkText("😀".repeat(messageTextCharsMax)).isOk()).toBe(true);
    expect(checkText("x".repeat(messageTextCharsMax + 1))._unsafeUnwrapErr()).toEqual({
      kind: "text-too-long",
      chars: messageTextCharsMax + 1,
      charsMax: messageTextCharsMax,
    });
  });
});

describe("resolveRecipients", () => {
  it("reaches an active session by label, case-insensitively, or by full id", () => {
    expect(resolveRecipients("ALPHA", "message", self, sessions)._unsafeUnwrap()).toEqual([
      { id: "a-id", label: "alpha" },
    ]);
    expect(resolveRecipients("b-id", "ask", self, sessions)._unsafeUnwrap()).toEqual([{ id: "b-id", label: "beta" }]);
  });

  it("prefers the active holder of a label over a gone session that once held it", () => {
    expect(resolveRecipients("alpha", "message", self, sessions)._unsafeUnwrap()[0]?.id).toBe("a-id");
  });

  it("refuses a gone session, naming it", () => {
    expect(resolveRecipients("ghost", "message", self, sessions)._unsafeUnwrapErr()).toEqual({
      kind: "recipient-gone",
      to: "ghost",
      id: "g-id",
      label: "ghost",
    });
  });

  it("refuses this session by label or id", () => {
    expect(resolveRecipients("me", "message", self, sessions)._unsafeUnwrapErr().kind).toBe("self-send");
    expect(resolveRecipients("me-id", "message", self, sessions)._unsafeUnwrapErr().kind).toBe("self-send");
  });

  it("refuses a name nobody has", () => {
    expect(resolveRecipients("nobody", "message", self, sessions)._unsafeUnwrapErr()).toEqual({
      kind: "no-recipient",
      to: "nobody",
    });
  });

  it("broadcasts an event to every other active session, skipping gone ones and itself", () => {
    expect(
      resolveRecipients("*", "event", self, sessions)
        ._unsafeUnwrap()
        .map((r) => r.id),
    ).toEqual(["a-id", "b-id"]);
  });

  it("refuses a broadcast of any kind but event", () => {
    for (const kind of ["message", "ask", "handoff"] as const) {
      expect(resolveRecipients("*", kind, self, sessions)._unsafeUnwrapErr()).toEqual({
        kind: "broadcast-needs-event",
        given: kind,
      });
    }
  });

  it("refuses a broadcast with nobody else active", () => {
    expect(resolveRecipients("*", "event", self, sessions.slice(0, 1))._unsafeUnwrapErr()).toEqual({
      kind: "no-peers",
    });
  });
});
