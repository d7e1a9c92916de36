// One batch of hostile entries and valid mail for a live session: the plan fast-check draws, the
// world it is written into, and the checks that must hold once the session has scanned it.
import * as fs from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { expect } from "vitest";
import { hiddenNamesMax } from "../../src/domain/mail/limits.js";
import { type Batch, type Entry, interleave, materialize, placeEntry } from "./hostile-entries.js";
import {
  type JunkRecord,
  junkRecord,
  type PeerPlan,
  peerAddress,
  peerPlan,
  plantJunk,
  plantPeers,
} from "./hostile-peers.js";
import { type HostileSpec, hostileSpec, type Named, named, type ValidSpec, validSpec } from "./hostile-specs.js";
import {
  buildTrap,
  createWorld,
  describeEntry,
  makeFifos,
  neverMarker,
  type RecordingHost,
  removeWorld,
  type Seal,
  seal,
  type World,
} from "./hostile-world.js";
import { expectFramed } from "./label-checks.js";

export interface RunPlan {
  hostile: Named<HostileSpec>[];
  valid: Named<ValidSpec>[];
  peers: PeerPlan;
  junk: JunkRecord[];
}

export function runPlan(hostileMin: number, hostileMax: number): fc.Arbitrary<RunPlan> {
  return fc.record({
    hostile: fc.array(named(hostileSpec), { minLength: hostileMin, maxLength: hostileMax }),
    valid: fc.array(named(validSpec), { minLength: 3, maxLength: 6 }),
    peers: peerPlan,
    junk: fc.array(junkRecord, { minLength: 3, maxLength: 6 }),
  });
}

export interface Prepared {
  batch: Batch;
  trap: Seal;
  inside: Seal;
  /** Hostile running records written (sender records and junk). */
  hostileRecords: number;
}

/** Peers, junk records, traps and sent copies, all before the session starts; then both sealed. */
export function prepare(world: World, plan: RunPlan): Prepared {
  const fifos: string[] = [];
  buildTrap(world, peerAddress("running"), fifos);
  const hostileRecords = plantPeers(world, plan.peers, fifos) + plan.junk.length;
  plantJunk(world, plan.junk, fifos);
  plantLeftovers(world);
  const batch = materialize(world, interleave(plan.hostile, plan.valid));
  for (const copy of batch.sent) placeEntry(join(world.sentDir, copy.name), copy.content, fifos);
  makeFifos(fifos);
  return { batch, trap: seal(world.trap), inside: seal(world.inside), hostileRecords };
}

const quietPeers: PeerPlan = { hostileName: "h", hostileCwd: "/h", hostileState: "idle", garbage: new Uint8Array() };

/** A world with the trap and the peers' records in place, for the fixed scenarios. */
export function fixedWorld(): World {
  const world = createWorld();
  try {
    const fifos: string[] = [];
    buildTrap(world, peerAddress("running"), fifos);
    plantPeers(world, quietPeers, fifos);
    makeFifos(fifos);
    return world;
  } catch (e) {
    removeWorld(world);
    throw e;
  }
}

/** Links where the session writes its own files: each must be replaced, never written through. */
function plantLeftovers(world: World): void {
  const note = join(world.trap, "note.txt");
  fs.symlinkSync(note, join(world.selfDir, "claiming.json"));
  fs.symlinkSync(note, join(world.tmpDir, "claiming.json.tmp"));
  fs.symlinkSync(note, join(world.runningDir, `.${world.self}.json.tmp`));
  const oldLink = join(world.tmpDir, "old-leftover-link");
  fs.symlinkSync(join(world.trap, "envelope.json"), oldLink);
  fs.lutimesSync(oldLink, 946_684_800, 946_684_800);
}

/** The one notice that sums up the entries of new/ never read as mail past those it names. */
const summaryOfHidden = /^Ignoring \d+ more entries in this session's inbox that are never read as mail/;

/** Writes `entries` into `dir` and returns what each one is, read before any session can touch it. */
export function place(dir: string, entries: readonly Entry[]): Map<string, string> {
  const fifos: string[] = [];
  for (const e of entries) placeEntry(join(dir, e.name), e.content, fifos);
  makeFifos(fifos);
  return new Map(entries.map((e) => [e.name, describeEntry(join(dir, e.name))]));
}

/** Where each entry must be and what the host must have seen of it. `extraIds`: mail delivered besides the batch. */
export function expectBatch(
  world: World,
  host: RecordingHost,
  batch: Batch,
  described: ReadonlyMap<string, string>,
  extraIds: readonly string[],
): void {
  for (const e of batch.entries) expectEntry(world, host, e, described.get(e.name) ?? "unknown");
  const delivered = batch.entries.filter((e) => e.outcome === "deliver").map((e) => join(world.curDir, e.name));
  const injectedPaths = host.injected
    .filter((i) => !extraIds.includes(i.mail.details.mailId))
    .map((i) => i.mail.details.path);
  expect(injectedPaths.sort(), "exactly the valid mail was injected").toEqual(delivered.sort());
  const ids = host.injected.map((i) => i.mail.details.mailId);
  expect(new Set(ids).size, "no mail injected twice").toBe(ids.length);
  for (const i of host.injected)
    expect(i.mail.content.includes(neverMarker), "a file never to be read was shown").toBe(false);
  const hiddenNamed = host.notices.filter((n) =>
    batch.entries.some((e) => e.outcome === "hidden" && n.text.includes(e.token)),
  );
  expect(hiddenNamed.length, "entries never read as mail are named up to a bound").toBeLessThanOrEqual(hiddenNamesMax);
  for (const n of host.notices) {
    // The rest of them are told in one summary, which names none.
    if (summaryOfHidden.test(n.text)) continue;
    const about = batch.entries.filter((e) => n.text.includes(e.token));
    expect(about.length, `every notice is about one entry: ${JSON.stringify(n.text)}`).toBe(1);
    expect(n.text.includes(neverMarker)).toBe(false);
  }
}

function expectEntry(world: World, host: RecordingHost, e: Entry, before: string): void {
  const inNew = join(world.newDir, e.name);
  const inCur = join(world.curDir, e.name);
  const [here, away] = e.outcome === "hidden" ? [inNew, inCur] : [inCur, inNew];
  const what = `${e.why} entry ${JSON.stringify(e.name)}`;
  expect(describeEntry(here), `${what} is where it belongs, unchanged`).toBe(before);
  expect(describeEntry(away), `${what} is in one place only`).toBe("absent");
  const notices = host.notices.filter((n) => n.text.includes(e.token));
  if (e.outcome === "hidden" && notices.length === 0) {
    // Past the bound of hidden entries named, one summary stands for it.
    expect(
      host.notices.filter((n) => summaryOfHidden.test(n.text)),
      `${what}: summed up`,
    ).toHaveLength(1);
  } else expect(notices.length, `${what}: warnings`).toBe(e.outcome === "deliver" ? 0 : 1);
  const shown = host.injected.filter((i) => i.mail.details.path === inCur);
  expect(shown.length, `${what}: injections`).toBe(e.outcome === "deliver" ? 1 : 0);
  const [first] = shown;
  if (e.framed === undefined || first === undefined) return;
  expect(first.mail.details.mailId).toBe(e.framed.id);
  expect(first.mail.details.kind, `${what}: delivered as`).toBe(e.framed.kind);
  expect(first.options).toEqual(
    e.framed.triggerTurn ? { triggerTurn: true, deliverAs: "steer" } : { triggerTurn: false, deliverAs: "followUp" },
  );
  expectFramed(first.mail.content, e.framed);
}
