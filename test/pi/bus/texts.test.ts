// What the model reads of an inbox read, as texts.ts words it: pure functions of the engine's result.
import { describe, expect, it } from "vitest";
import type { InboxRead } from "../../../src/domain/bus/engine/index.js";
import { inboxReadCharsMax } from "../../../src/domain/bus/limits.js";
import { noticeContent } from "../../../src/pi/bus/notice.js";
import { inboxText } from "../../../src/pi/bus/texts.js";

const unreadable = (count: number): InboxRead["unreadable"] =>
  Array.from({ length: count }, (_, i) => ({ name: `junk-${i}.json`, reason: "not-json" as const, mtimeMs: i }));

describe("inboxText", () => {
  it("names at most 10 files it cannot read and counts the rest, so a junk-filled inbox cannot flood the result", () => {
    const read: InboxRead = { rows: [], more: 0, unreadable: unreadable(25), consumeFailed: undefined };
    const text = inboxText(read).text;
    expect(text).toContain("junk-0.json, junk-1.json");
    expect(text).toContain("junk-9.json and 15 more — left on disk, cleared by the TTL.");
    expect(text).not.toContain("junk-10.json");
  });

  it("names every file when there are few, and sanitizes a name a peer chose", () => {
    const read: InboxRead = {
      rows: [],
      more: 2,
      unreadable: [{ name: "bad\u001b[31m\u202e.json", reason: "not-json", mtimeMs: 0 }],
      consumeFailed: undefined,
    };
    expect(inboxText(read).text).toBe(
      "No unread mail.\n… 2 more\nMail this build cannot read: bad [31m .json — left on disk, cleared by the TTL.",
    );
  });
});

describe("noticeContent", () => {
  const message = (i: number) => ({
    id: `m${i}`,
    from: "0190b2b2-0000-7000-8000-0000000000b2",
    fromLabel: "integrator",
    kind: "handoff" as const,
    preview: "x".repeat(800),
    clipped: true,
    paths: Array.from({ length: 64 }, (_, k) => `src/${"p".repeat(300)}/${k}`),
  });

  it("keeps a burst of long notices within the inbox's 4,000-character budget, counting the rest", () => {
    const notice = {
      delivery: "wake" as const,
      seq: 1,
      messages: Array.from({ length: 50 }, (_, i) => message(i)),
      handoffs: 50,
    };
    const { content, details } = noticeContent(notice);
    expect(content.length).toBeLessThan(2 * inboxReadCharsMax);
    expect(content).toMatch(/\n… and \d+ more\n/);
    expect(details.ids).toHaveLength(50);
    expect(content).toContain(" and 56 more");
  });
});
