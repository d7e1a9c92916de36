// The claim race's judges fire: each is fed a made-up log with exactly the fault it looks for.
import { describe, expect, it } from "vitest";
import type { BusError } from "../../src/domain/bus/bus-errors.js";
import {
  attemptsOf,
  collide,
  doubleHolds,
  judgeRefusals,
  judgeSnapshots,
  type WorkerLog,
} from "./harness/bus-claim-log.js";
import type { ClaimLine, ReleaseLine } from "./harness/bus-worker-io.js";

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
    expect(seen.unexplained).toEqual(["src~a~t", "not a claim"]);
  });
});
