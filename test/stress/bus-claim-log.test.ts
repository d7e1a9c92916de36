// The claim race's judges fire: each is fed a made-up log with exactly the fault it looks for.
import { describe, expect, it } from "vitest";
import type { BusError } from "../../src/domain/bus/bus-errors.js";
import {
  attemptsOf,
  collide,
  doubleHolds,
  judgeHandoffs,
  judgeRefusals,
  judgeSnapshots,
  type WorkerLog,
} from "./harness/bus-claim-log.js";
import type { AcceptLine, ClaimLine, OfferLine, ReleaseLine } from "./harness/bus-worker-io.js";

const ok = (n: number, s: number, e: number, keys: string[]): ClaimLine => ({
  ev: "claim",
  n,
  s: String(s),
  e: String(e),
  paths: keys,
  ok: true,
  keys,
  alreadyHeld: [],
});
const refused = (n: number, s: number, e: number, paths: string[], error: BusError): ClaimLine => ({
  ev: "claim",
  n,
  s: String(s),
  e: String(e),
  paths,
  ok: false,
  error,
});
const release = (n: number, s: number, e: number, keys: string[]): ReleaseLine => ({
  ev: "release",
  n,
  s: String(s),
  e: String(e),
  keys,
  released: keys,
  failed: undefined,
});
const log = (id: string, claims: ClaimLine[], releases: ReleaseLine[]): WorkerLog => ({
  ready: { ev: "ready", id, label: `label-${id}`, pid: 1 },
  claims,
  releases,
});
const conflict = (path: string, heldPath: string, id: string, race = false): BusError => ({
  kind: "claim-conflict",
  conflicts: [{ path, heldPath, holder: { id, label: `label-${id}` } }],
  race,
});

describe("the claim race's judges", () => {
  it("collide: the same path or a directory prefix, either way; never a mere name prefix", () => {
    expect([collide("src", "src/api"), collide("src/api", "src"), collide("src", "src")]).toEqual([true, true, true]);
    expect([collide("src", "srcx"), collide("docs", "src")]).toEqual([false, false]);
  });

  it("doubleHolds names two sessions holding colliding keys at once, and nothing else", () => {
    const a = log(
      "a",
      [ok(1, 0, 10, ["src"]), ok(2, 100, 110, ["docs"])],
      [release(1, 20, 25, ["src"]), release(2, 120, 125, ["docs"])],
    );
    const overlapping = log("b", [ok(1, 5, 15, ["src/api"])], [release(1, 30, 35, ["src/api"])]);
    const after = log(
      "c",
      [ok(1, 21, 26, ["src/api"]), ok(2, 100, 111, ["src/lib"])],
      [release(1, 40, 45, ["src/api"]), release(2, 130, 135, ["src/lib"])],
    );
    expect(doubleHolds(attemptsOf([a, overlapping]))).toEqual(["label-a#1 src and label-b#1 src/api"]);
    // c held src/api from 26, after a released src at 20; c's src/lib and a's docs do not collide.
    expect(doubleHolds(attemptsOf([a, after]))).toEqual([]);
  });

  it("judgeRefusals accepts a named holder that had a file then, and flags one that had none", () => {
    const holder = log("h", [ok(1, 0, 10, ["src"])], [release(1, 20, 25, ["src"])]);
    const fair = log("f", [refused(1, 12, 14, ["src/api"], conflict("src/api", "src", "h"))], []);
    const late = log("l", [refused(1, 30, 31, ["src/api"], conflict("src/api", "src", "h"))], []);
    const race = log("r", [refused(1, 3, 8, ["src"], conflict("src", "src", "h", true))], []);
    const stranger = log("s", [refused(1, 12, 14, ["src/api"], conflict("src/api", "src", "nobody"))], []);
    const other = log("o", [refused(1, 12, 14, ["src"], { kind: "missing", field: "paths" })], []);
    const tally = judgeRefusals(attemptsOf([holder, fair, late, race, stranger, other]));
    expect([tally.heldByHolder, tally.lostRace, tally.conflicts]).toEqual([1, 1, 4]);
    expect(tally.wrong.map((w) => w.slice(0, 9))).toEqual(["label-l#1", "label-s#1", "label-o#1"]);
  });

  it("judgeSnapshots flags a file nobody's claim explains and two colliding holds seen at once", () => {
    const a = log("a", [ok(1, 0, 10, ["src"])], [release(1, 50, 55, ["src"])]);
    const b = log("b", [ok(1, 0, 10, ["src/api"])], [release(1, 50, 55, ["src/api"])]);
    const attempts = attemptsOf([a, b]);
    const seen = judgeSnapshots(
      [
        { from: 20n, to: 21n, names: ["src~a~t", "src%2Fapi~b~t"] },
        { from: 60n, to: 61n, names: ["src~a~t", "not a claim"] },
      ],
      attempts,
    );
    expect(seen.doubleHeld).toEqual(["src by a and src/api by b"]);
    expect(seen.unexplained).toEqual(["src~a~t listed at 60..61", "not a claim listed at 60..61"]);
  });

  describe("judgeHandoffs and the attempts of a handoff", () => {
    const offerLine = (n: number, s: number, e: number, keys: string[], id: string): OfferLine => ({
      ev: "offer",
      n,
      s: String(s),
      e: String(e),
      to: "label-b",
      keys,
      ok: true,
      id,
    });
    type Accepted = AcceptLine & { ok: true };
    const acceptLine = (a: number, s: number, e: number, id: string, paths: string[], taken: string[]): Accepted => ({
      ev: "accept",
      a,
      s: String(s),
      e: String(e),
      id,
      paths,
      ok: true,
      taken,
      released: paths.filter((key) => !taken.includes(key)),
      lost: [],
    });
    const sender = (released: string[]): WorkerLog => ({
      ...log("a", [ok(1, 0, 10, ["src", "docs"])], [{ ...release(1, 40, 45, ["src", "docs"]), released }]),
      offers: [offerLine(1, 10, 12, ["src", "docs"], "o1")],
    });
    const recipient = (accept: Accepted, released = accept.taken): WorkerLog => ({
      ...log("b", [], [{ ...release(accept.a, 50, 55, accept.taken), of: "accept", released }]),
      accepts: [accept],
    });

    it("passes a clean move: the sender's claims end at the accept, the recipient's hold starts there", () => {
      const logs = [sender([]), recipient(acceptLine(1, 20, 30, "o1", ["src", "docs"], ["src", "docs"]))];
      expect(judgeHandoffs(logs)).toEqual({ offers: 1, accepted: 1, keysMoved: 2, lapsed: 0, lostRaces: 0, wrong: [] });
      const attempts = attemptsOf(logs);
      expect(attempts.map((a) => [a.kind, a.keys, a.hold])).toEqual([
        ["moved", ["src", "docs"], { from: 10n, to: 20n }],
        ["accept", ["src", "docs"], { from: 30n, to: 50n }],
      ]);
      expect(doubleHolds(attempts)).toEqual([]);
    });

    it("names a key neither side ended with, one both did, and one taken that was never offered", () => {
      const neither = [sender([]), recipient(acceptLine(1, 20, 30, "o1", ["src", "docs"], ["src"]), ["src"])];
      expect(judgeHandoffs(neither).wrong).toEqual(["label-a offer 1 (src,docs): docs neither released nor taken"]);
      const both = [sender(["docs"]), recipient(acceptLine(1, 20, 30, "o1", ["src", "docs"], ["src", "docs"]))];
      expect(judgeHandoffs(both).wrong).toEqual(["label-a offer 1 (src,docs): docs released by the sender and taken"]);
      const foreign = [sender([]), recipient(acceptLine(1, 20, 30, "o1", ["src", "docs"], ["src", "docs", "test"]))];
      expect(judgeHandoffs(foreign).wrong).toEqual(["label-a offer 1 (src,docs): the accept took test, never offered"]);
    });

    it("names a sender that kept a key past its release with no accept, and an accept of no offer", () => {
      expect(judgeHandoffs([sender(["src"])]).wrong).toEqual([
        "label-a offer 1 (src,docs): kept docs past its release, moved by no accept",
      ]);
      const stray = recipient(acceptLine(1, 20, 30, "o9", ["src"], ["src"]));
      expect(judgeHandoffs([stray]).wrong).toEqual(["label-b accept 1 of o9: no such offer was made"]);
    });

    it("counts a key let go to a third session's claim as resolved, and judges that claim as a refusal", () => {
      const lostTo = { path: "docs", heldPath: "docs", holder: { id: "c", label: "label-c" } };
      const accept: Accepted = {
        ...acceptLine(1, 20, 30, "o1", ["src", "docs"], ["src"]),
        released: [],
        lost: [lostTo],
      };
      const logs = [sender([]), recipient(accept), log("c", [ok(1, 25, 28, ["docs"])], [release(1, 60, 61, ["docs"])])];
      expect(judgeHandoffs(logs)).toMatchObject({ accepted: 1, keysMoved: 1, lostRaces: 1, wrong: [] });
      expect(judgeRefusals(attemptsOf(logs))).toMatchObject({ lostRace: 1, wrong: [] });
      const named = [sender([]), recipient(accept)];
      expect(judgeRefusals(attemptsOf(named)).wrong).toHaveLength(1);
    });
  });
});
