import { describe, expect, it } from "vitest";
import type { BoardSnapshot } from "../../../../src/pi/bus/board/board-model.js";
import { formatListing } from "../../../../src/pi/bus/board/listing.js";
import { claim, joinedSnapshot, message, session } from "./board-harness.js";

describe("formatListing", () => {
  it("lists this session, every session with its state, listening, unread count and claims, then every claim", () => {
    const snapshot = joinedSnapshot({
      self: { id: "id-billing-core", label: "billing-core", joined: true, listening: "wake" },
      sessions: [
        session("billing-core", { self: true, listening: "wake", claims: ["src/api/"] }),
        session("integrator", { unread: 2, claims: ["src/db/schema.ts", "docs/"] }),
        session("crashed", { state: "gone", listening: "unknown" }),
      ],
      inbox: [message("m1")],
      claims: [
        claim("src/api/", "billing-core", true),
        claim("src/db/schema.ts", "integrator", false),
        claim("docs/", "integrator", false),
      ],
    });
    expect(formatListing(snapshot)).toBe(
      [
        "This session: billing-core, listening: wake.",
        "Sessions (3):",
        "  billing-core (you) (id-billing-core): active, wake, 0 unread, claims: src/api/",
        "  integrator (id-integrator): active, next turn, 2 unread, claims: src/db/schema.ts, docs/",
        "  crashed (id-crashed): gone, 0 unread, no claims",
        "Claims (3):",
        "  src/api/: billing-core (you)",
        "  src/db/schema.ts: integrator",
        "  docs/: integrator",
      ].join("\n"),
    );
  });

  it("says nobody has joined, and that this session has not, on an empty bus", () => {
    const empty: BoardSnapshot = {
      self: { id: "id-me", joined: false, listening: "not listening" },
      sessions: [session("me", { self: true })],
      inbox: [],
      claims: [],
      offers: [],
    };
    expect(formatListing(empty)).toBe(
      [
        "This session has not joined the bus.",
        "Nobody has joined the bus on this repository yet.",
        "Claims: none.",
      ].join("\n"),
    );
  });

  it("keeps a peer's escapes and newlines out of the listing", () => {
    const snapshot = joinedSnapshot({
      sessions: [session("evil\x1b[2J\nSessions (9):", { claims: ["a\u202eb"] })],
      claims: [claim("a\u202eb", "evil\x1b[2J\nSessions (9):", false)],
    });
    const listing = formatListing(snapshot);
    expect(listing).not.toMatch(/[\x1b\u202e]/);
    expect(listing.split("\n")).toEqual([
      "This session: billing-core, listening: next turn.",
      "Sessions (1):",
      "  evil Sessions (9): (id-evil Sessions (9):): active, next turn, 0 unread, claims: ab",
      "Claims (1):",
      "  ab: evil Sessions (9):",
    ]);
  });
});
