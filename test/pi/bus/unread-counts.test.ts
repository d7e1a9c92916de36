// An unread count the listing's bound cut reads "at least N" wherever a person or the model sees it:
// the status text, the board's list, its pane and the plain listing. An exact count reads as before.
// (Each test failed before: the cut count read as exact.)
import { describe, expect, it } from "vitest";
import type { SessionRow, StatusView } from "../../../src/domain/bus/engine/index.js";
import { inboxEntriesMax } from "../../../src/domain/bus/limits.js";
import { paneOf } from "../../../src/pi/bus/board/board-panes.js";
import { listRows } from "../../../src/pi/bus/board/board-rows.js";
import { formatListing } from "../../../src/pi/bus/board/listing.js";
import { statusText } from "../../../src/pi/bus/status-text.js";
import { joinedSnapshot, session } from "./board/board-harness.js";

function row(label: string, unread: number, unreadAtLeast: boolean): SessionRow {
  return {
    id: `0190a1a1-${label}`,
    label,
    state: "active",
    listening: "next-turn",
    unread,
    unreadAtLeast,
    claims: [],
    observed: [],
    self: false,
    cwd: "/repo",
    heartbeatMs: 0,
    stopped: false,
  };
}

const view: StatusView = {
  self: { id: undefined, label: undefined, joined: false, listening: "off" },
  sessions: [row("bob", inboxEntriesMax, true), row("carol", 12, false)],
  offers: [],
  unreadableRecords: 0,
  root: "/repo",
};

describe("an unread count cut by the listing's bound", () => {
  it("reads 'at least' in the status text, and an exact one does not", () => {
    const lines = statusText(view, (id) => id.slice(0, 12)).text.split("\n");
    expect(lines).toContain("- bob (0190a1a1-bob) · active · next turn · at least 20,000 unread · no claims");
    expect(lines).toContain("- carol (0190a1a1-car) · active · next turn · 12 unread · no claims");
  });

  it("reads 'at least' in the board's list, its pane and the plain listing", () => {
    const snapshot = joinedSnapshot({
      sessions: [session("bob", { unread: inboxEntriesMax, unreadAtLeast: true }), session("carol", { unread: 12 })],
    });
    const [bob, carol] = listRows(snapshot, "sessions");
    expect(bob?.text).toContain("at least 20,000 unread");
    expect(carol?.text).toContain(" 12 unread");
    expect(carol?.text).not.toContain("at least");
    expect(paneOf(snapshot, "sessions", "id-bob", 80)?.lines.join("\n")).toContain("at least 20,000");
    const listing = formatListing(snapshot);
    expect(listing).toContain("  bob (id-bob): active, next turn, at least 20,000 unread, no claims");
    expect(listing).toContain("  carol (id-carol): active, next turn, 12 unread, no claims");
  });
});
