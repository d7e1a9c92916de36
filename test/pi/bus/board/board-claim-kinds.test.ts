// The board tells an observed claim (taken by an edit, lapsing) from one asked for, and names the
// session a standing handoff offers a claim to: in the claims list, its pane, a session's pane and
// the plain listing, read from a real engine's snapshot.
import { describe, expect, it } from "vitest";
import { readBoardSnapshot } from "../../../../src/pi/bus/board/board-read.js";
import { formatListing } from "../../../../src/pi/bus/board/listing.js";
import { createBusHarness, idOf } from "../../../domain/bus/engine/harness.js";
import { claim, joinedSnapshot, keys, openBoard, session } from "./board-harness.js";

const peer = { id: "id-integrator", label: "integrator" };

function snapshot() {
  return joinedSnapshot({
    sessions: [
      session("billing-core", { self: true, claims: ["src/api", "README.md"], observed: ["README.md"] }),
      session("integrator"),
    ],
    claims: [
      claim("src/api", "billing-core", true, { offeredTo: peer }),
      claim("README.md", "billing-core", true, { observed: true }),
      claim("docs", "integrator", false),
    ],
    offers: [{ id: "m1", from: { id: "id-billing-core", label: "billing-core" }, to: peer, keys: ["src/api"] }],
  });
}

describe("observed and offered claims on the board", () => {
  it("marks each claim row observed or offered, and leaves an explicit one unmarked", () => {
    const { press, screen } = openBoard(snapshot());
    press(keys.tab, keys.tab);
    const rows = screen()
      .slice(2, 5)
      .map((line) => line.slice(2).trimEnd());
    expect(rows[0]).toMatch(/^src\/api\s+billing-core \(you\)\s+offered to integrator$/);
    expect(rows[1]).toMatch(/^README\.md\s+billing-core \(you\)\s+observed$/);
    expect(rows[2]).toMatch(/^docs\s+integrator$/);
  });

  it("says in a claim's pane what kind it is, when it lapses, and whom it is offered to", () => {
    const { press, text } = openBoard(snapshot());
    press(keys.tab, keys.tab, keys.down, keys.enter);
    const observed = text();
    expect(observed).toMatch(/kind\s+observed/);
    expect(observed).toContain("it lapses 15 minutes after this session's last edit of it");
    press(keys.escape, keys.up, keys.enter);
    const offered = text();
    expect(offered).toMatch(/kind\s+explicit/);
    expect(offered).toMatch(/offered to\s+integrator \(id-integrator\)/);
    expect(offered).toContain("it moves when they accept");
    expect(offered).not.toContain("lapses");
  });

  it("marks observed claims in a session's pane and in the plain listing", () => {
    const { press, text } = openBoard(snapshot());
    press(keys.enter);
    expect(text()).toMatch(/claims\s+src\/api\n\s+README\.md \(observed\)/);
    expect(formatListing(snapshot())).toContain(
      [
        "  src/api: billing-core (you) (offered to integrator)",
        "  README.md: billing-core (you) (observed)",
        "  docs: integrator",
      ].join("\n"),
    );
  });

  it("reads both from the engine: an edit's claim is observed, a handoff's claims name its recipient", () => {
    const h = createBusHarness();
    const lead = h.start("alice").engine;
    lead.join({ label: "lead" });
    const other = h.start("bob").engine;
    other.join({ label: "peer" });
    lead.claim(["src/api"])._unsafeUnwrap();
    expect(lead.checkEdit("README.md")._unsafeUnwrap().kind).toBe("observed");
    const id = lead.send({ to: "peer", kind: "handoff", text: "yours", paths: ["src/api"] })._unsafeUnwrap().messageId;
    const read = readBoardSnapshot(other);
    expect(read.claims.map(({ key, observed, offeredTo }) => ({ key, observed, offeredTo }))).toEqual([
      { key: "README.md", observed: true, offeredTo: undefined },
      { key: "src/api", observed: false, offeredTo: { id: idOf.bob, label: "peer" } },
    ]);
    expect(read.offers).toEqual([
      { id, from: { id: idOf.alice, label: "lead" }, to: { id: idOf.bob, label: "peer" }, keys: ["src/api"] },
    ]);
    expect(read.sessions.find((s) => s.id === idOf.alice)?.observed).toEqual(["README.md"]);
    other.accept(id)._unsafeUnwrap();
    expect(readBoardSnapshot(other).claims.find((c) => c.key === "src/api")).toMatchObject({
      ownerId: idOf.bob,
      offeredTo: undefined,
    });
  });
});
