// One process owns an address's inbox. Pi does not stop a session id from running twice (`pi -c`
// in two panes, `--session-id` twice); two owners would share one claim journal, answer each
// other's asks and delete each other's running record. The second process is a guest: it sends,
// but claims nothing, writes no record and prunes nothing of its own, until the owner is gone.
import { integer, parseShaped, record, text } from "../../shared/shape.js";
import type { Address } from "../address.js";
import { ownerCheckMs, ownerTakeoverAttemptsMax } from "../limits.js";
import { decodeRunningRecord, isFreshRecord } from "../running-record.js";
import { describeStoreError } from "../store-errors.js";
import type { MailContext } from "./context.js";

export interface Ownership {
  /** Another process owns this address's inbox: this one sends, but claims and records nothing. */
  guest(): boolean;
  /** At open: whether this process owns the inbox now (a guest otherwise). */
  start(): boolean;
  /** At most every ownerCheckMs: a guest tries to take the inbox over, an owner checks it still holds it. */
  check(): "unchanged" | "taken" | "lost";
  /** Lets the inbox go at shutdown, so a twin (or the next start) takes it at once. */
  release(): void;
}

interface OwnershipState {
  guest: boolean;
  /** Unique to this engine: names its owner record and the temp files of its attempts. */
  token: string | undefined;
  /** The owner record this process wrote while it owns the inbox. */
  text: string | undefined;
  /** When ownership was last checked. */
  checkedMs: number;
}

export function createOwnership(ctx: MailContext): Ownership {
  const s: OwnershipState = { guest: false, token: undefined, text: undefined, checkedMs: 0 };
  return {
    guest: () => s.guest,
    start() {
      s.checkedMs = ctx.clock.now();
      s.guest = !takeOwnership(ctx, s);
      return !s.guest;
    },
    check: () => check(ctx, s),
    release() {
      const address = ctx.session.address();
      if (address === undefined || s.text === undefined) return;
      ctx.store.releaseOwner(address, s.text);
      s.text = undefined;
    },
  };
}

function check(ctx: MailContext, s: OwnershipState): "unchanged" | "taken" | "lost" {
  const now = ctx.clock.now();
  if (now - s.checkedMs < ownerCheckMs || ctx.session.address() === undefined) return "unchanged";
  s.checkedMs = now;
  if (s.guest) {
    if (!takeOwnership(ctx, s)) return "unchanged";
    s.guest = false;
    return "taken";
  }
  if (stillOwner(ctx, s)) return "unchanged";
  s.guest = true;
  return "lost";
}

interface Holder {
  pid: number;
  started: string | undefined;
  token: string;
  pidNamespace: string | undefined;
  bootId: string | undefined;
}

const holderShape = record(
  { pid: integer(1), started: text(), token: text({ minLength: 1 }), pidNamespace: text(), bootId: text() },
  ["started", "pidNamespace", "bootId"],
);

function parseHolder(text: string): Holder | undefined {
  const raw = parseShaped<Partial<Holder> & { pid: number; token: string }>(text, holderShape);
  if (raw === undefined) return undefined;
  const { pid, started, token, pidNamespace, bootId } = raw;
  return { pid, started, token, pidNamespace, bootId };
}

/** This process as an owner record names it. */
function ownerText(ctx: MailContext, token: string): string {
  const me = ctx.probe.self();
  const fields: Partial<Holder> = { pid: me.pid, token };
  if (me.started !== undefined) fields.started = me.started;
  if (me.pidNamespace !== undefined) fields.pidNamespace = me.pidNamespace;
  if (me.bootId !== undefined) fields.bootId = me.bootId;
  return `${JSON.stringify(fields)}\n`;
}

/** Whether the holder is gone. A holder that cannot be checked from here (another pid namespace,
 * or a probe that cannot tell) is judged by the running record it keeps fresh (rewritten every
 * minute): gone once that record is stale or names another pid. */
function holderGone(ctx: MailContext, address: Address, holder: Holder): boolean {
  const me = ctx.probe.self();
  if (holder.pidNamespace !== undefined && holder.pidNamespace !== me.pidNamespace)
    return recordStale(ctx, address, holder);
  if (holder.bootId !== undefined && me.bootId !== undefined && holder.bootId !== me.bootId) return true;
  const liveness = ctx.probe.check(holder.pid, holder.started);
  return liveness === "gone" || (liveness === "unknown" && recordStale(ctx, address, holder));
}

function recordStale(ctx: MailContext, address: Address, holder: Holder): boolean {
  const text = ctx.store.readRunning(address);
  if (text.isErr() || text.value === undefined) return true;
  const kept = decodeRunningRecord(text.value, address);
  if (kept.isErr()) return true;
  const { pid, pidNamespace } = kept.value;
  return pid !== holder.pid || pidNamespace !== holder.pidNamespace || !isFreshRecord(kept.value, ctx.clock.now());
}

/** Whether this process owns its inbox now, taking it when nobody does or its holder is gone. */
function takeOwnership(ctx: MailContext, s: OwnershipState): boolean {
  const address = ctx.session.address();
  if (address === undefined) return false;
  s.token ??= ctx.entropy.uuid();
  const mine = ownerText(ctx, s.token);
  const token = s.token;
  let claim = ctx.store.claimOwner(address, token, mine);
  for (let attempt = 0; attempt < ownerTakeoverAttemptsMax && claim.isOk() && claim.value.kind === "held"; attempt++) {
    const held = claim.value.text;
    if (held === mine) break;
    const holder = parseHolder(held);
    // A record nobody can judge is respected: better a guest than two owners.
    if (holder === undefined || !holderGone(ctx, address, holder)) {
      noteGuest(ctx, holder);
      return false;
    }
    claim = ctx.store.replaceOwner(address, held, token, mine);
  }
  if (claim.isErr()) {
    ctx.notices.once(`owner:${describeStoreError(claim.error)}`, { kind: "owner-unclaimed", error: claim.error });
    return false;
  }
  if (claim.value.kind === "held" && claim.value.text !== mine) {
    noteGuest(ctx, parseHolder(claim.value.text));
    return false;
  }
  s.text = mine;
  return true;
}

/** For a prune about to remove `address`'s folder: "live" when a live process may own its inbox,
 * else the owner record judged gone (undefined: none). A record nobody can judge counts as live,
 * and so does a holder in another pid namespace that has not written its running record yet (a
 * session takes its inbox as it starts, before it writes the record that proves it runs). */
export function inboxOwner(ctx: MailContext, address: Address): "live" | { gone: string | undefined } {
  const held = ctx.store.readOwner(address);
  if (held.isErr()) return "live";
  if (held.value === undefined) return { gone: undefined };
  const holder = parseHolder(held.value);
  if (holder === undefined) return "live";
  if (holder.pidNamespace !== undefined && holder.pidNamespace !== ctx.probe.self().pidNamespace) {
    const record = ctx.store.readRunning(address);
    if (record.isErr() || record.value === undefined) return "live";
  }
  return holderGone(ctx, address, holder) ? { gone: held.value } : "live";
}

function noteGuest(ctx: MailContext, holder: Holder | undefined): void {
  ctx.notices.once(`guest:${holder?.token ?? ""}`, { kind: "guest", holderPid: holder?.pid });
}

/** Whether the owner record still names this process (a folder restored from a backup, or one
 * removed by hand, loses it: it is taken again). */
function stillOwner(ctx: MailContext, s: OwnershipState): boolean {
  const address = ctx.session.address();
  if (address === undefined || s.text === undefined) return false;
  const held = ctx.store.readOwner(address);
  if (held.isOk() && held.value === s.text) return true;
  s.text = undefined;
  return takeOwnership(ctx, s);
}
