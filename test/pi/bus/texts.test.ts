// What the model reads of an inbox read, as texts.ts words it: pure functions of the engine's result.
import { describe, expect, it } from "vitest";
import type { InboxRead } from "../../../src/domain/bus/engine/index.js";
import { inboxRowHeader, planInboxRead } from "../../../src/domain/bus/inbox-read.js";
import { inboxReadCharsMax } from "../../../src/domain/bus/limits.js";
import { noticeContent } from "../../../src/pi/bus/notice.js";
import { inboxText } from "../../../src/pi/bus/texts.js";
import type { InboxEntry } from "../../../src/ports/bus/bus-store.js";
import { apart, busMessage } from "../../domain/bus/fixtures.js";

const unreadable = (count: number): InboxRead["unreadable"] =>
  Array.from({ length: count }, (_, i) => ({ name: `junk-${i}.json`, reason: "not-json" as const, mtimeMs: i }));

describe("inboxText", () => {
  it("keeps the rows of a full read, with the line breaks between them, within the 4,000-character budget", () => {
    // Rows of 400 characters each: ten of them are 4,000 alone, and the breaks between them more.
    const header = inboxRowHeader(busMessage("m0"));
    const text = "x".repeat(400 - header.length - 3);
    const entries: InboxEntry[] = Array.from({ length: 12 }, (_, i) => ({
      kind: "message",
      name: `f-m${i}`,
      arrivedMs: i,
      message: busMessage(`m${i}`, { text, sentAt: apart(i) }),
    }));
    const plan = planInboxRead({ entries, files: entries.length }, 20);
    expect(plan.rows[0]?.chars).toBe(400);
    const shown = inboxText({ rows: plan.rows, more: 0, unreadable: [], consumeFailed: undefined }).text;
    expect(shown.length).toBeLessThanOrEqual(inboxReadCharsMax);
    expect(plan.rows).toHaveLength(9);
  });

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

  it("tells the model why mail at the hop limit did not wake the session, and only then", () => {
    const plain = { delivery: "next-turn" as const, seq: 1, messages: [message(1)], handoffs: 1 };
    expect(noticeContent(plain).content).not.toContain("hops into a chain");
    const held = noticeContent({ ...plain, atHopLimit: { hops: 5, limit: 5 } }).content;
    expect(held).toContain(
      "Some of this mail came 5 hops into a chain of sessions waking each other (the limit is 5), so it did not wake this session. Answer it only if the person asks you to.",
    );
  });
});
