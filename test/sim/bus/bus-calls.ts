// One tool call or host event of one process, checked as it returns. `clean` says no other process
// ran inside the call: only then does the disk before it tell what the call may see (invariant 5).
import type { ShutdownReason } from "../../../src/domain/bus/engine/index.js";
import { pick } from "../shared/pick.js";
import { allClaims, claims, type DiskClaim, heldClaims, liveClaims, records } from "./bus-disk.js";
import { endProcess, startProcess } from "./bus-process.js";
import { type BusProcess, type BusWorld, repoRoots } from "./bus-world.js";

/** Repository-relative keys the schedule claims: overlapping prefixes, some not created yet. */
export const claimKeys = [
  "src",
  "src/api",
  "src/api/routes.ts",
  "src/ui",
  "docs",
  "docs/guide.md",
  "docs/routes.ts",
  "README.md",
];
const joinLabels = [undefined, undefined, "api", "docs", "core", "Not A Label"];

const short = (id: string) => id.slice(0, 8);

/** A key as this session names it: relative to its cwd, or absolute now and then. */
export function spell(world: BusWorld, proc: BusProcess, key: string): string {
  const root = repoRoots.find((r) => proc.slot.cwd === r || proc.slot.cwd.startsWith(`${r}/`)) ?? repoRoots[0];
  const below = proc.slot.cwd.slice(root.length + 1);
  if (world.prng.nextFloat() < 0.15) return `${root}/${key}`;
  if (below === "") return key;
  if (key === below) return ".";
  if (key.startsWith(`${below}/`)) return key.slice(below.length + 1);
  return `../${key}`;
}

function someKeys(world: BusWorld): string[] {
  const count = 1 + world.prng.nextInt(3);
  return Array.from({ length: count }, () => pick(world, claimKeys) as string);
}

/** The session's join token on disk when the record names this process (else undefined). */
export function ownToken(world: BusWorld, proc: BusProcess): string | undefined {
  const found = records(world).get(proc.id);
  return found !== undefined && found.record.pid === proc.pid ? found.record.joinToken : undefined;
}

export const dead = (proc: BusProcess) => !proc.alive || proc.crash.crashed;

/** The live claims as this process may judge them (from its pid namespace). */
export const liveClaimsFor = (world: BusWorld, proc: BusProcess) =>
  liveClaims(world, records(world, world.table.probeFor(proc.pid).self().pidNamespace));
/** The live claims and those held for an owner in doubt, as this process may judge them. */
export const heldClaimsFor = (world: BusWorld, proc: BusProcess) =>
  heldClaims(world, records(world, world.table.probeFor(proc.pid).self().pidNamespace));

export function join(world: BusWorld, proc: BusProcess): string {
  const label = pick(world, joinLabels);
  const wake = world.prng.nextFloat() < 0.5;
  const listen = world.prng.nextFloat() < 0.15 ? false : undefined;
  const observe = world.prng.nextFloat() < 0.15 ? false : undefined;
  const joined = proc.engine.join({ label, wake, listen, observe });
  return `join ${proc.slot.name}${label === undefined ? "" : ` as ${label}`}${wake ? " wake" : ""}${listen === false ? " deaf" : ""}${observe === false ? " unobserving" : ""}: ${joined.isOk() ? joined.value.label : joined.error.kind}`;
}

/** Whom to address: a peer's label or id as its record says, everyone, or nobody that exists. */
function target(world: BusWorld, proc: BusProcess): { to: string; kind: string } {
  const kinds = ["message", "event", "ask", "handoff"];
  const kind = pick(world, kinds) as string;
  const peers = [...records(world).values()].filter((r) => r.record.id !== proc.id);
  const peer = pick(world, peers);
  const roll = world.prng.nextFloat();
  if (roll < 0.25) return { to: "*", kind: roll < 0.22 ? "event" : kind };
  if (peer === undefined || roll > 0.95) return { to: "nobody-here", kind };
  return { to: roll < 0.6 ? peer.record.label : peer.record.id, kind };
}

export function send(world: BusWorld, proc: BusProcess): string {
  const { to, kind } = target(world, proc);
  const paths = world.prng.nextFloat() < 0.3 ? someKeys(world).map((k) => spell(world, proc, k)) : undefined;
  const sent = proc.engine.send({ to, kind, text: `${kind} from ${proc.slot.name} at ${world.step}`, paths });
  if (sent.isErr()) return `send ${proc.slot.name} -> ${to}: ${sent.error.kind}`;
  for (const recipient of sent.value.delivered) {
    // Reported delivered even if the process died later in the fan-out: that file was written.
    if (world.ledger.delivered(sent.value.messageId, recipient.id) === "unpublished") {
      world.violations.push(
        `send ${short(sent.value.messageId)} reported delivered to ${short(recipient.id)}: no file`,
      );
    }
  }
  return `send ${proc.slot.name} -> ${to} (${kind}): ${sent.value.delivered.length} delivered, ${sent.value.failed.length} failed`;
}

/** Invariant 4: one session's reads never show a message twice (two live processes of one id, a
 * second pane, may each show what both peeked before either consumed it). */
export function inbox(world: BusWorld, proc: BusProcess): string {
  const limit = world.prng.nextFloat() < 0.1 ? undefined : 1 + world.prng.nextInt(50);
  const read = proc.engine.inbox(limit);
  if (read.isErr()) return `inbox ${proc.slot.name}: ${read.error.kind}`;
  // Returned even by a read that died consuming: the engine took it off the disk for this read.
  for (const row of read.value.rows) world.ledger.returned(proc.id, row.name);
  if (dead(proc)) return `inbox ${proc.slot.name}: died reading`;
  for (const row of read.value.rows) {
    const before = world.ledger.shownTo(proc.id, row.message.id);
    const twice = before.find((b) => b.serial === proc.serial || (b.diedAt !== undefined && b.diedAt < proc.bornAt));
    if (twice !== undefined) {
      world.violations.push(
        `${proc.slot.name} was shown message ${short(row.message.id)} again (first by process #${twice.serial})`,
      );
    }
    world.ledger.noteShown(proc.id, row.message.id, { serial: proc.serial, bornAt: proc.bornAt, diedAt: proc.diedAt });
  }
  return `inbox ${proc.slot.name} limit ${limit}: ${read.value.rows.length} shown, ${read.value.more} more`;
}

/** Invariants 2 and 5 for one claim: all or nothing, and a conflict names only a live holder. */
export function claim(world: BusWorld, proc: BusProcess, clean: boolean, keys = someKeys(world)): string {
  const liveBefore = clean ? new Set(heldClaimsFor(world, proc).map((c) => c.owner)) : undefined;
  proc.linked = [];
  const result = proc.engine.claim(keys.map((k) => spell(world, proc, k)));
  const what = `claim ${proc.slot.name} [${keys.join(" ")}]`;
  if (dead(proc)) return `${what}: died`;
  const onDisk = claims(world);
  if (result.isOk()) {
    const token = ownToken(world, proc);
    const held = (key: string) =>
      onDisk.some((c) => c.key === key && c.owner === proc.id && (token === undefined || c.joinToken === token));
    // A second process of this session may release what this one claimed, inside the call.
    for (const key of proc.slot.processes.length > 1 ? [] : result.value.claimed) {
      if (!held(key)) world.violations.push(`${what} returned ok, but ${key} is not held by it`);
    }
    return `${what}: ok`;
  }
  const files = new Set(allClaims(world).map((c: DiskClaim) => c.file));
  for (const made of proc.linked) {
    if (files.has(made)) world.violations.push(`${what} failed (${result.error.kind}) and left ${made}`);
  }
  if (result.error.kind === "claim-conflict" && liveBefore !== undefined) {
    for (const conflict of result.error.conflicts) {
      if (!liveBefore.has(conflict.holder.id)) {
        world.violations.push(`${what} was refused by ${short(conflict.holder.id)}, which held nothing live`);
      }
    }
  }
  return `${what}: ${result.error.kind}`;
}

export function release(world: BusWorld, proc: BusProcess): string {
  const keys = someKeys(world);
  const result = proc.engine.release(keys.map((k) => spell(world, proc, k)));
  const what = `release ${proc.slot.name} [${keys.join(" ")}]`;
  if (result.isErr() || dead(proc)) return `${what}: ${result.isErr() ? result.error.kind : "died"}`;
  // A release never takes a live peer's claim.
  const token = ownToken(world, proc);
  for (const key of result.value.released) {
    const left = claims(world).filter((c) => c.key === key && c.owner === proc.id && c.joinToken === token);
    if (left.length > 0) world.violations.push(`${what} released ${key}, still held`);
  }
  return `${what}: ${result.value.released.length} released`;
}

/** Invariant 5 for a status read: the claims it lists are exactly the live ones on disk, so a gone
 * session's are free at once and a hung one's are held until its heartbeat passes the TTL. */
export function status(world: BusWorld, proc: BusProcess, clean: boolean, board = false): string {
  const live = clean ? liveClaimsFor(world, proc) : undefined;
  const held = clean ? new Set(heldClaimsFor(world, proc).map((c) => `${c.owner}/${c.key}`)) : undefined;
  const view = board ? proc.engine.snapshot() : proc.engine.status();
  const what = `${board ? "snapshot" : "status"} ${proc.slot.name}`;
  if (view.isErr() || dead(proc)) return `${what}: ${view.isErr() ? view.error.kind : "died"}`;
  if (live !== undefined) {
    const listed = new Set(view.value.sessions.flatMap((row) => row.claims.map((key) => `${row.id}/${key}`)));
    // A file's identity claim is shown as its path, once.
    const expected = new Set(live.filter((c) => c.identity === undefined).map((c) => `${c.owner}/${c.key}`));
    for (const entry of listed) {
      if (!expected.has(entry) && held?.has(entry) !== true) {
        world.violations.push(`${what} lists ${entry}, held by no live session`);
      }
    }
    for (const entry of expected) {
      if (!listed.has(entry)) world.violations.push(`${what} misses ${entry}, held by a live session`);
    }
  }
  return `${what}: ${view.value.sessions.length} sessions`;
}

/** The agent's next move: a raised turn starts, a run settles, or the user types a prompt. */
export function agentStep(world: BusWorld, proc: BusProcess): string {
  const { agent, engine } = proc;
  if (agent.running) {
    const aborted = world.prng.nextFloat() < 0.2;
    agent.running = false;
    engine.runSettled(aborted);
    return `settle ${proc.slot.name}${aborted ? " (aborted)" : ""}`;
  }
  const raised = agent.startRequested;
  agent.startRequested = false;
  agent.noticed(engine.promptStarting());
  agent.running = true;
  engine.runStarted();
  return `${raised ? "raised turn" : "prompt"} ${proc.slot.name}`;
}

/** Pi's reasons (a shell's step-out is the CLI's, tested on its own). */
type PiShutdownReason = Exclude<ShutdownReason, "step-out">;
const reasons: PiShutdownReason[] = ["quit", "reload", "new", "resume", "fork"];
const sameIdReasons: PiShutdownReason[] = ["quit", "reload", "resume"];

/** Pi's session_shutdown: quit ends the process; the others start the next session in it. */
export function shutdown(world: BusWorld, proc: BusProcess): string {
  const reason = pick(world, proc.slot.keepsId === true ? sameIdReasons : reasons) as PiShutdownReason;
  proc.engine.shutdown(reason);
  if (dead(proc)) return `shutdown ${proc.slot.name} (${reason}): died`;
  endProcess(world, proc);
  if (reason === "quit") {
    world.table.exit(proc.pid);
    world.hooks?.ended(proc, "quit");
    return `quit ${proc.slot.name}`;
  }
  // /new and /fork open a new session id in this process; /resume and /reload keep this one.
  if (reason === "new" || reason === "fork") proc.slot.id = world.ids.uuid();
  const next = startProcess(world, proc.slot, { pid: proc.pid, reason });
  return `${reason} ${proc.slot.name} -> #${next.serial}`;
}
