// One process owns an address's inbox. Pi does not stop a session id from running twice (`pi -c`
// in two panes, `--session-id` twice); two owners would share one claim journal, answer each
// other's asks and delete each other's running record. The second process is a guest: it sends,
// but claims nothing, writes no record and prunes nothing of its own, until the owner is gone.
import { integer, parseShaped, record, text } from "../../shared/shape.js";
import type { Address } from "../address.js";
import { decodeRunningRecord, isFreshRecord } from "../running-record.js";
import { describeStoreError as describe } from "../store-errors.js";
import type { EngineContext } from "./context.js";

/** Tries to take a holder over that often: a twin closing makes the other one the owner. */
const attemptsMax = 3;

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
function ownerText(ctx: EngineContext, token: string): string {
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
function holderGone(ctx: EngineContext, address: Address, holder: Holder): boolean {
  const me = ctx.probe.self();
  if (holder.pidNamespace !== undefined && holder.pidNamespace !== me.pidNamespace)
    return recordStale(ctx, address, holder);
  if (holder.bootId !== undefined && me.bootId !== undefined && holder.bootId !== me.bootId) return true;
  const liveness = ctx.probe.check(holder.pid, holder.started);
  return liveness === "gone" || (liveness === "unknown" && recordStale(ctx, address, holder));
}

function recordStale(ctx: EngineContext, address: Address, holder: Holder): boolean {
  const text = ctx.store.readRunning(address);
  if (text.isErr() || text.value === undefined) return true;
  const kept = decodeRunningRecord(text.value, address);
  if (kept.isErr()) return true;
  const { pid, pidNamespace } = kept.value;
  return pid !== holder.pid || pidNamespace !== holder.pidNamespace || !isFreshRecord(kept.value, ctx.clock.now());
}

/** Whether this process owns its inbox now, taking it when nobody does or its holder is gone. */
export function takeOwnership(ctx: EngineContext): boolean {
  const { state } = ctx;
  const address = state.identity?.address;
  if (address === undefined) return false;
  state.ownerToken ??= ctx.entropy.uuid();
  const mine = ownerText(ctx, state.ownerToken);
  const token = state.ownerToken;
  let claim = ctx.store.claimOwner(address, token, mine);
  for (let attempt = 0; attempt < attemptsMax && claim.isOk() && claim.value.kind === "held"; attempt++) {
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
    ctx.warnOnce(
      `owner:${describe(claim.error)}`,
      `Could not take this session's mailbox for this process: ${describe(claim.error)}. It only sends until it can; trying again at each poll.`,
    );
    return false;
  }
  if (claim.value.kind === "held" && claim.value.text !== mine) {
    noteGuest(ctx, parseHolder(claim.value.text));
    return false;
  }
  state.ownerText = mine;
  return true;
}

function noteGuest(ctx: EngineContext, holder: Holder | undefined): void {
  const who = holder === undefined ? "another process" : `another process (pid ${holder.pid})`;
  ctx.warnOnce(
    `guest:${holder?.token ?? ""}`,
    `This session's mailbox is held by ${who}: the same session is open twice (pi -c or --session-id in two terminals). This one sends, but mail to this session is read by the other one; close one of them.`,
  );
}

/** Whether the owner record still names this process (a folder restored from a backup, or one
 * removed by hand, loses it: it is taken again). */
export function stillOwner(ctx: EngineContext): boolean {
  const { state } = ctx;
  const address = state.identity?.address;
  if (address === undefined || state.ownerText === undefined) return false;
  const held = ctx.store.readOwner(address);
  if (held.isOk() && held.value === state.ownerText) return true;
  state.ownerText = undefined;
  return takeOwnership(ctx);
}

/** Lets the inbox go at shutdown, so a twin (or the next start) takes it at once. */
export function releaseOwnership(ctx: EngineContext): void {
  const { state } = ctx;
  const address = state.identity?.address;
  if (address === undefined || state.ownerText === undefined) return;
  ctx.store.releaseOwner(address, state.ownerText);
  state.ownerText = undefined;
}
