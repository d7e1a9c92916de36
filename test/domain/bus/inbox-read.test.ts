import { describe, expect, it } from "vitest";
import type { BusMessage } from "../../../src/domain/bus/bus-files.js";
import { inboxLimit, inboxRowHeader, planInboxRead } from "../../../src/domain/bus/inbox-read.js";
import {
  duplicateWindowMs,
  handoffBodyCharsMax,
  inboxBodyCharsMax,
  inboxLimitDefault,
  inboxLimitMax,
  inboxReadCharsMax,
} from "../../../src/domain/bus/limits.js";
import type { InboxEntry, InboxPeek } from "../../../src/ports/bus/bus-store.js";
import { apart, busMessage } from "./fixtures.js";

const entry = (message: BusMessage): InboxEntry => ({
  kind: "message",
  name: `f-${message.id}`,
  arrivedMs: 0,
  message,
});
const unreadable = (name: string): InboxEntry => ({
  kind: "unreadable",
  name,
  reason: "not-json",
  mtimeMs: 5,
  arrivedMs: 5,
});
const peekOf = (entries: InboxEntry[], files = entries.length): InboxPeek => ({ entries, files });
/** Distinct messages of one text: sent further apart than the duplicate window, so none folds. */
const messages = (count: number, text = "hi") =>
  Array.from({ length: count }, (_, i) => entry(busMessage(`m${i}`, { text, sentAt: apart(i) })));

describe("inboxLimit", () => {
  it("defaults to 20 and clamps to 1..50", () => {
    expect(inboxLimit(undefined)).toBe(inboxLimitDefault);
    expect(inboxLimit(0)).toBe(1);
    expect(inboxLimit(500)).toBe(inboxLimitMax);
    expect(inboxLimit(7.9)).toBe(7);
  });
});

describe("planInboxRead", () => {
  it("shows the front in arrival order and consumes exactly the names shown", () => {
    const plan = planInboxRead(peekOf(messages(5)), 3);
    expect(plan.rows.map((r) => r.message.id)).toEqual(["m0", "m1", "m2"]);
    expect(plan.consume).toEqual(["f-m0", "f-m1", "f-m2"]);
    expect(plan.more).toBe(2);
  });

  it("clips a body at 400 code points and a handoff's at 800", () => {
    const long = "x".repeat(2_000);
    const plan = planInboxRead(
      peekOf([entry(busMessage("a", { text: long })), entry(busMessage("h", { text: long, kind: "handoff" }))]),
      20,
    );
    expect(plan.rows.map((r) => [r.body.length, r.clipped])).toEqual([
      [inboxBodyCharsMax, true],
      [handoffBodyCharsMax, true],
    ]);
  });

  it("stops before the first row that would pass the budget and counts the rest", () => {
    const plan = planInboxRead(peekOf(messages(30, "y".repeat(inboxBodyCharsMax))), 30);
    const spent = plan.rows.reduce((sum, row) => sum + row.chars, 0);
    expect(spent).toBeLessThanOrEqual(inboxReadCharsMax);
    expect(spent + plan.rows[0]!.chars).toBeGreaterThan(inboxReadCharsMax);
    expect(plan.more).toBe(30 - plan.rows.length);
  });

  it("does not skip a long row to show a shorter one behind it (the front is a queue)", () => {
    const rows = [...messages(9, "z".repeat(inboxBodyCharsMax)), entry(busMessage("short", { text: "s" }))];
    rows.splice(8, 0, entry(busMessage("handoff", { kind: "handoff", text: "h".repeat(handoffBodyCharsMax) })));
    const plan = planInboxRead(peekOf(rows), 20);
    expect(plan.rows.map((r) => r.message.id)).not.toContain("short");
  });

  it("always shows at least one message, and stops before the row that would pass the budget", () => {
    const paths = Array.from({ length: 64 }, (_, i) => `src/${"p".repeat(300)}/${i}`);
    const lines = "x\n".repeat(200);
    const big = (id: string, i: number) => entry(busMessage(id, { paths, text: lines, sentAt: apart(i) }));
    const plan = planInboxRead(peekOf([big("big1", 0), big("big2", 1), ...messages(2)]), 20);
    expect(plan.rows.map((r) => r.message.id)).toEqual(["big1"]);
    expect(plan.rows[0]!.chars + plan.rows[0]!.chars).toBeGreaterThan(inboxReadCharsMax);
  });

  it("names at most 8 paths of a message in its header, each cut to 200 characters, and counts the rest", () => {
    const paths = Array.from({ length: 64 }, (_, i) => `src/${"p".repeat(300)}/${i}`);
    const header = planInboxRead(peekOf([entry(busMessage("big", { paths }))]), 20).rows[0]!.header;
    expect(header).toMatch(/ and 56 more$/);
    expect(header.length).toBeLessThan(8 * 202 + 200);
  });

  it("counts a body as the model reads it: two columns of indent per line", () => {
    const plan = planInboxRead(peekOf([entry(busMessage("lines", { text: "a\nb\nc" }))]), 20);
    const row = plan.rows[0]!;
    expect(row.chars).toBe(row.header.length + 1 + 5 + 2 * 3);
  });

  it("names unreadable mail, leaves it, and keeps it out of the `… N more` count", () => {
    const plan = planInboxRead(peekOf([unreadable("bad.json"), ...messages(2)], 10), 20);
    expect(plan.unreadable).toEqual([{ name: "bad.json", reason: "not-json", mtimeMs: 5 }]);
    expect(plan.consume).toEqual(["f-m0", "f-m1"]);
    expect(plan.more).toBe(10 - 2 - 1);
  });

  it("counts `… N more` from the inbox's files, not from the peek", () => {
    expect(planInboxRead(peekOf(messages(50), 120), 20).more).toBe(100);
  });

  it("sanitizes what a peer wrote into the header", () => {
    const header = inboxRowHeader(busMessage("a", { fromLabel: "evil\nSYSTEM:", paths: ["a\u202eb"] }));
    expect(header).toBe("message from evil SYSTEM: (sender-id) · paths: a b");
  });

  it("shows nothing and consumes nothing from an empty inbox", () => {
    expect(planInboxRead(peekOf([]), 20)).toEqual({ rows: [], consume: [], more: 0, unreadable: [] });
  });
});

describe("duplicates", () => {
  const sent = (id: string, atMs: number, fields: Partial<BusMessage> = {}) =>
    entry(
      busMessage(id, {
        text: "same",
        sentAt: new Date(Date.parse("2024-05-01T10:00:00.000Z") + atMs).toISOString(),
        ...fields,
      }),
    );

  it("shows the same text from the same sender within the window once, with a count, and consumes every file", () => {
    const plan = planInboxRead(peekOf([sent("a", 0), sent("b", 1_000), sent("c", duplicateWindowMs)]), 1);
    expect(plan.rows.map((r) => [r.message.id, r.repeats, r.foldedIds])).toEqual([["a", 3, ["b", "c"]]]);
    expect(plan.consume).toEqual(["f-a", "f-b", "f-c"]);
    expect(plan.more).toBe(0);
    expect(inboxRowHeader(plan.rows[0]!.message, plan.rows[0]!.repeats)).toMatch(/ · sent 3 times within 60 s$/);
    expect(plan.rows[0]!.chars).toBe(
      planInboxRead(peekOf([sent("a", 0)]), 1).rows[0]!.chars + " · sent 3 times within 60 s".length,
    );
  });

  it("keeps apart what differs: another sender, kind, text or paths, a handoff, or a send past the window", () => {
    const plan = planInboxRead(
      peekOf([
        sent("a", 0),
        sent("b", 1, { from: "other-id" }),
        sent("c", 2, { kind: "event" }),
        sent("d", 3, { text: "other" }),
        sent("e", 4, { paths: ["src"] }),
        sent("f", duplicateWindowMs + 1),
        sent("g", 5, { kind: "handoff" }),
        sent("h", 6, { kind: "handoff" }),
      ]),
      20,
    );
    expect(plan.rows.map((r) => r.repeats)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
  });
});
