// The senders of the mail, one per kind of running record: a plain live peer, a live peer whose name
// and cwd are hostile, and peers whose record is missing, dead, a link out of the root, a FIFO, too
// big or garbage. Plus junk in running/ that names no sender at all.
import * as fs from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import type { Address } from "../../src/domain/mail/address.js";
import { hostileText } from "./hostile-text.js";
import { deadPid, neverMarker, ownStartToken, type World } from "./hostile-world.js";

export const peerKinds = ["running", "hostile", "closed", "dead", "linked", "fifo", "huge", "garbage"] as const;
export type PeerKind = (typeof peerKinds)[number];

export function peerAddress(kind: PeerKind): Address {
  const n = peerKinds.indexOf(kind);
  return `${(0x1000_0000 + n * 0x11).toString(16)}-0000-4000-8000-${String(n).padStart(12, "0")}` as Address;
}

/** The name and cwd a label must show for mail from `kind`; undefined: hostile, checked by shape only. */
export function expectedSender(kind: PeerKind): { name: string; cwd: string | undefined } | undefined {
  if (kind === "hostile") return undefined;
  if (kind === "running") return { name: `peer-${kind}`, cwd: `/work/peer-${kind}` };
  return { name: peerAddress(kind).slice(0, 8), cwd: undefined };
}

export interface PeerPlan {
  hostileName: string;
  hostileCwd: string;
  hostileState: string;
  garbage: Uint8Array;
}

export const peerPlan: fc.Arbitrary<PeerPlan> = fc.record({
  hostileName: hostileText,
  hostileCwd: hostileText,
  hostileState: hostileText,
  garbage: fc.oneof(
    fc.uint8Array({ maxLength: 256 }),
    fc.jsonValue({ maxDepth: 2 }).map((v) => new TextEncoder().encode(JSON.stringify(v) ?? "null")),
  ),
});

function record(address: Address, fields: Record<string, unknown>): string {
  const started = ownStartToken === undefined ? {} : { started: ownStartToken };
  return `${JSON.stringify({ address, pid: process.pid, ...started, state: "idle", waitingOn: "", updated: "2026-01-01T00:00:00.000Z", ...fields })}\n`;
}

/** Writes every peer's record (or what stands in its place); FIFOs to make go to `fifos`.
 * Returns how many records are hostile. */
export function plantPeers(world: World, plan: PeerPlan, fifos: string[]): number {
  const at = (kind: PeerKind) => join(world.runningDir, `${peerAddress(kind)}.json`);
  const write = (kind: PeerKind, text: string | Uint8Array) => fs.writeFileSync(at(kind), text, { mode: 0o600 });
  write("running", record(peerAddress("running"), { name: "peer-running", cwd: "/work/peer-running" }));
  write(
    "hostile",
    record(peerAddress("hostile"), {
      name: plan.hostileName,
      cwd: plan.hostileCwd,
      state: plan.hostileState,
      waitingOn: plan.hostileState,
      updated: plan.hostileState,
    }),
  );
  write("dead", record(peerAddress("dead"), { name: neverMarker, cwd: "/dead", pid: deadPid }));
  // If the link were followed, the label would show the marker as the sender's name.
  const trapRecord = join(world.trap, `record-${peerAddress("linked")}.json`);
  fs.writeFileSync(trapRecord, record(peerAddress("linked"), { name: neverMarker, cwd: neverMarker }), { mode: 0o600 });
  fs.symlinkSync(trapRecord, at("linked"));
  fifos.push(at("fifo"));
  write("huge", record(peerAddress("huge"), { name: neverMarker, cwd: `/${"h".repeat(17 * 1024)}` }));
  write("garbage", plan.garbage);
  return 6;
}

/** Junk in running/: records that name no live sender, names that are no address, links, folders. */
export type JunkRecord =
  | { t: "bytes"; bytes: Uint8Array }
  | { t: "json"; value: unknown }
  | { t: "mismatch" }
  | { t: "bad-pid"; pid: unknown }
  | { t: "odd-name"; name: string }
  | { t: "link"; to: "trap-file" | "trap-dir" | "trap-fifo" | "dangling" }
  | { t: "dir" }
  | { t: "fifo" };

export const junkRecord: fc.Arbitrary<JunkRecord> = fc.oneof(
  fc.record({ t: fc.constant("bytes" as const), bytes: fc.uint8Array({ maxLength: 128 }) }),
  fc.record({ t: fc.constant("json" as const), value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.constant({ t: "mismatch" as const }),
  fc.record({ t: fc.constant("bad-pid" as const), pid: fc.constantFrom(0, -1, 1.5, "1", null, 2 ** 31, 2 ** 53) }),
  fc.record({
    t: fc.constant("odd-name" as const),
    name: fc.constantFrom("..json", ".hidden.json", "a b.json", "x.json.tmp", "noext", ".json", "running.json"),
  }),
  fc.record({ t: fc.constant("link" as const), to: fc.constantFrom("trap-file", "trap-dir", "trap-fifo", "dangling") }),
  fc.constant({ t: "dir" as const }),
  fc.constant({ t: "fifo" as const }),
);

/** Writes the junk records, each under an address nobody mails from; FIFOs to make go to `fifos`. */
export function plantJunk(world: World, junk: readonly JunkRecord[], fifos: string[]): void {
  for (const [n, j] of junk.entries())
    plantOneJunk(world, j, `junk${String(n).padStart(4, "0")}-0000-4000-8000-000000000000`, fifos);
}

function plantOneJunk(world: World, j: JunkRecord, address: string, fifos: string[]): void {
  const path = join(world.runningDir, `${address}.json`);
  const write = (text: string | Uint8Array, at = path) => fs.writeFileSync(at, text, { mode: 0o600 });
  switch (j.t) {
    case "bytes":
      write(j.bytes);
      break;
    case "json":
      write(JSON.stringify(j.value) ?? "null");
      break;
    case "mismatch":
      write(record(peerAddress("running"), { name: neverMarker, cwd: "/" }));
      break;
    case "bad-pid":
      write(record(address as Address, { name: neverMarker, cwd: "/", pid: j.pid }));
      break;
    case "odd-name":
      write(record(address as Address, { name: neverMarker, cwd: "/" }), join(world.runningDir, j.name));
      break;
    case "link": {
      const targets = { "trap-file": "envelope.json", "trap-dir": "dir", "trap-fifo": "fifo", dangling: "missing" };
      fs.symlinkSync(join(world.trap, targets[j.to]), path);
      break;
    }
    case "dir":
      fs.mkdirSync(path, { mode: 0o700 });
      break;
    case "fifo":
      fifos.push(path);
      break;
    default: {
      const never: never = j;
      throw new Error(`unknown junk ${JSON.stringify(never)}`);
    }
  }
}
