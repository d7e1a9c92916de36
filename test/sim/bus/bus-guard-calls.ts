// The steps of claims that hold: a session's edit (the check before the model's edit or write, which
// may take an observed claim), a handoff offering claims it holds, the recipient's accept, and time
// passing past the observed lapse. Each is checked as it returns against the disk read straight.
import type { HandoffOffer } from "../../../src/domain/bus/bus-files.js";
import { observedLapseMs } from "../../../src/domain/bus/limits.js";
import { pick } from "../shared/pick.js";
import { claimKeys, dead, heldClaimsFor, liveClaimsFor, ownToken, spell } from "./bus-calls.js";
import { claims, type DiskClaim, fileAt, filesHeld, names, records, tagOf } from "./bus-disk.js";
import { checkNoDoubleHolders } from "./bus-invariants.js";
import { advance, type BusProcess, type BusWorld, repoRoots } from "./bus-world.js";

/** Files the model edits: one under two names, some not made yet, each under a claimable folder. */
const editKeys = ["src/api/routes.ts", "docs/routes.ts", "README.md", "docs/guide.md", "src/ui/app.ts"];
/** How many of an accept's calls on claims/ a reader samples the claims at. */
const acceptSamplesMax = 12;

const short = (id: string) => id.slice(0, 8);
const conflict = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
const rootOf = (proc: BusProcess) =>
  repoRoots.find((r) => proc.slot.cwd === r || proc.slot.cwd.startsWith(`${r}/`)) ?? repoRoots[0];

/** Path claims among `held` in the way of an edit of `key` (file `file` in the editor's worktree
 * `root`): by key, or by an identity claim beside it that names that file there. */
function inTheWay(world: BusWorld, held: DiskClaim[], key: string, root: string): DiskClaim[] {
  const file = fileAt(world, root, key);
  const files = filesHeld(held);
  return held.filter((c) => {
    if (c.identity !== undefined) return false;
    if (conflict(c.key, key)) return true;
    return file !== undefined && files.get(tagOf(c))?.has(file) === true && fileAt(world, root, c.key) === file;
  });
}

/** The edit check agrees with the disk: held only by a session some reader may judge to hold it,
 * and never let through while a live session other than this one holds it for every reader. What
 * it lets this session do as its own (`own`, `observed`) it holds once the check returns. */
export function edit(world: BusWorld, proc: BusProcess, clean: boolean): string {
  const key = pick(world, editKeys) as string;
  const root = rootOf(proc);
  const others = clean ? inTheWay(world, liveClaimsFor(world, proc), key, root) : [];
  const maybe = clean ? new Set(inTheWay(world, heldClaimsFor(world, proc), key, root).map((c) => c.owner)) : undefined;
  const checked = proc.engine.checkEdit(spell(world, proc, key));
  const what = `edit ${proc.slot.name} ${key}`;
  if (checked.isErr()) return `${what}: ${checked.error.kind}`;
  if (dead(proc)) return `${what}: died`;
  const verdict = checked.value;
  const holder = verdict.kind === "held" ? verdict.conflict.holder.id : undefined;
  if (holder !== undefined && maybe !== undefined && !maybe.has(holder)) {
    world.violations.push(`${what} was held by ${short(holder)}, which held nothing of it`);
  }
  const other = others.find((c) => c.owner !== proc.id);
  if (verdict.kind !== "held" && other !== undefined) {
    world.violations.push(`${what} went ahead (${verdict.kind}) while ${short(other.owner)} held ${other.key}`);
  }
  if ((verdict.kind === "own" || verdict.kind === "observed") && proc.slot.processes.length === 1) {
    const token = ownToken(world, proc);
    const mine = claims(world).some(
      (c) =>
        c.identity === undefined &&
        c.owner === proc.id &&
        (token === undefined || c.joinToken === token) &&
        c.mayHaveLapsed !== true &&
        conflict(c.key, key) &&
        !c.key.startsWith(`${key}/`),
    );
    if (!mine) world.violations.push(`${what} went ahead (${verdict.kind}) but holds no claim of it`);
  }
  return `${what}: ${verdict.kind}${holder === undefined ? "" : ` by ${short(holder)}`}`;
}

/** The offers on disk, as written. */
export function diskOffers(world: BusWorld): HandoffOffer[] {
  const folder = `${world.busRoot}/offers`;
  return names(world, folder).flatMap((name) => {
    try {
      return [JSON.parse(String(world.vol.readFileSync(`${folder}/${name}`, "utf8"))) as HandoffOffer];
    } catch {
      return [];
    }
  });
}

/** Names in offers/ and in every inbox: what a refused handoff must not have written. */
function written(world: BusWorld): string {
  const inbox = `${world.busRoot}/inbox`;
  const mail = names(world, inbox).flatMap((to) => names(world, `${inbox}/${to}`).map((n) => `${to}/${n}`));
  return [...names(world, `${world.busRoot}/offers`), ...mail].join(" ");
}

/** Keys of `own` that overlap one of `keys` (by key, or as one file in `root`), transitively. */
function overlapping(world: BusWorld, own: string[], keys: string[], root: string | undefined): string[] {
  const file = (key: string) => (root === undefined ? undefined : fileAt(world, root, key));
  const closed = [...keys];
  for (let grown = true; grown; ) {
    grown = false;
    for (const key of own) {
      if (closed.includes(key)) continue;
      const f = file(key);
      if (closed.some((k) => conflict(k, key) || (f !== undefined && file(k) === f))) {
        closed.push(key);
        grown = true;
      }
    }
  }
  return closed;
}

/** A handoff offering claims this session holds (now and then one it does not) to one live peer. */
export function offer(world: BusWorld, proc: BusProcess, clean: boolean): string {
  const token = ownToken(world, proc);
  const own = claims(world)
    .filter((c) => c.identity === undefined && c.owner === proc.id && c.joinToken === token)
    .map((c) => c.key);
  const peer = pick(
    world,
    [...records(world).values()].filter((r) => r.live && r.record.id !== proc.id),
  );
  if (peer === undefined) return `offer ${proc.slot.name}: no peer`;
  const drawn = own.filter(() => world.prng.nextFloat() < 0.6);
  if (drawn.length === 0 && own[0] !== undefined) drawn.push(own[0]);
  // Half the offers take every claim of the sender's that overlaps one drawn; the others split them
  // (a folder and not a claim below it, one name of a file held under two): the accept must then
  // leave one holder of each.
  const whole = world.prng.nextFloat() < 0.5;
  const keys = whole ? overlapping(world, own, drawn, records(world).get(proc.id)?.record.root) : drawn;
  const unheld = claimKeys.filter((k) => !own.includes(k));
  if (keys.length === 0 || world.prng.nextFloat() < 0.1) keys.push(pick(world, unheld) ?? "src");
  const to = world.prng.nextFloat() < 0.5 ? peer.record.label : peer.record.id;
  const before = clean ? written(world) : undefined;
  const text = `handoff from ${proc.slot.name} at ${world.step}`;
  const sent = proc.engine.send({ to, kind: "handoff", text, paths: keys.map((k) => spell(world, proc, k)) });
  const what = `offer ${proc.slot.name} -> ${to} [${keys.join(" ")}]`;
  if (sent.isErr()) {
    if (sent.error.kind === "handoff-unheld" && before !== undefined && written(world) !== before) {
      world.violations.push(`${what} was refused (${sent.error.kind}) after writing`);
    }
    return `${what}: ${sent.error.kind}`;
  }
  if (dead(proc)) return `${what}: died`;
  if (!names(world, `${world.busRoot}/offers`).includes(`${sent.value.messageId}.json`)) {
    world.violations.push(`${what} was delivered without its offer`);
  }
  return `${what}: offered ${short(sent.value.messageId)}`;
}

/** The recipient takes an offer (now and then one made to another session). A clean accept is
 * sampled by a reader at each of its calls on claims/: at no moment are two live holders seen. */
export function accept(world: BusWorld, proc: BusProcess, clean: boolean): string {
  const offers = diskOffers(world);
  const mine = offers.filter((o) => o.to === proc.id);
  const chosen = pick(world, mine.length > 0 && world.prng.nextFloat() < 0.9 ? mine : offers);
  if (chosen === undefined) return `accept ${proc.slot.name}: no offer`;
  const what = `accept ${proc.slot.name} ${short(chosen.id)}`;
  // Two claims of this very offer, one moved and one not yet (a folder and a file below it): each
  // side blocks the other's edits there and no third session can claim either, but a reader sees
  // both. One rename per claim cannot move nested claims at once; no third session gets in.
  const inTransfer = (a: DiskClaim, b: DiskClaim) =>
    (chosen.keys.includes(a.key) || chosen.keys.includes(b.key)) &&
    [a.owner, b.owner].includes(chosen.from) &&
    [a.owner, b.owner].includes(proc.id);
  if (clean) {
    for (let at = 0; at < acceptSamplesMax; at++) {
      const sample = () => checkNoDoubleHolders(world, ` inside ${what} at its claims/ call ${at}`, inTransfer);
      proc.interleave.at(at, sample, `${world.busRoot}/claims`);
    }
  }
  const result = proc.engine.accept(chosen.id);
  if (clean) proc.interleave.disarm();
  if (result.isErr()) return `${what}: ${result.error.kind}`;
  if (dead(proc)) return `${what}: died`;
  const token = ownToken(world, proc);
  const now = claims(world).filter((c) => c.identity === undefined);
  for (const key of result.value.taken) {
    if (!now.some((c) => c.key === key && c.owner === proc.id && (token === undefined || c.joinToken === token))) {
      world.violations.push(`${what} took ${key}, not held by it`);
    }
    if (now.some((c) => c.key === key && c.owner === chosen.from && c.joinToken === chosen.fromToken)) {
      world.violations.push(`${what} took ${key}, still held by its sender`);
    }
  }
  return `${what}: took [${result.value.taken.join(" ")}]`;
}

/** Time passes past the observed lapse (timers firing on the way): an observed claim nobody edited
 * since holds nothing now. */
export function lapse(world: BusWorld): string {
  const ms = observedLapseMs + world.prng.nextInt(60_000);
  advance(world, ms);
  return `lapse ${ms}`;
}
