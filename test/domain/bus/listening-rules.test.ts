import { describe, expect, it } from "vitest";
import { handoffBodyCharsMax, noticePreviewCharsMax } from "../../../src/domain/bus/limits.js";
import { buildNotice, onNewMail, raiseAfterRun } from "../../../src/domain/bus/listening-rules.js";
import { busMessage } from "./fixtures.js";

const idle = { busy: false, raised: false, hops: 0 };

describe("onNewMail", () => {
  it("ignores mail when not listening", () => {
    expect(onNewMail({ armed: false, wake: true }, idle)).toBe("ignore");
  });

  it("keeps mail for the next prompt when listening without wake", () => {
    expect(onNewMail({ armed: true, wake: false }, idle)).toBe("next-turn");
  });

  it("raises a turn when waking and the agent is idle with nothing raised", () => {
    expect(onNewMail({ armed: true, wake: true }, idle)).toBe("raise");
  });

  it("waits for the run to settle when busy, or when a raised turn has not settled", () => {
    expect(onNewMail({ armed: true, wake: true }, { busy: true, raised: false, hops: 0 })).toBe("after-run");
    expect(onNewMail({ armed: true, wake: true }, { busy: false, raised: true, hops: 0 })).toBe("after-run");
  });
});

describe("raiseAfterRun", () => {
  it("raises after a run that completed, never after one the user stopped", () => {
    expect(raiseAfterRun(false, { armed: true, wake: true })).toBe(true);
    expect(raiseAfterRun(true, { armed: true, wake: true })).toBe(false);
  });

  it("raises nothing once wake was turned off meanwhile", () => {
    expect(raiseAfterRun(false, { armed: true, wake: false })).toBe(false);
  });
});

describe("buildNotice", () => {
  it("previews 200 code points of a message and 800 of a handoff, and counts handoffs", () => {
    const text = "w".repeat(1_000);
    const notice = buildNotice("wake", 3, [busMessage("a", { text }), busMessage("h", { text, kind: "handoff" })]);
    expect(notice.seq).toBe(3);
    expect(notice.handoffs).toBe(1);
    expect(notice.messages.map((m) => [m.id, m.preview.length, m.clipped])).toEqual([
      ["a", noticePreviewCharsMax, true],
      ["h", handoffBodyCharsMax, true],
    ]);
  });
});
