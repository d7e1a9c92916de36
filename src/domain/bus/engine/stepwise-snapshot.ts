// The board's snapshot read in steps, each bounded by a page of claims/: one whole listing of a full
// claims/ holds the loop longer than the board may, and so does sorting or checking all its keys at
// once. A step lists a page and files its live claims, each owner's sorted; then a step merges
// those sorted runs, steps check the keys against the marks a page at a time, and the last step
// makes the view around them. The caller gives the loop back between steps. Only the last step
// gives a view, and a whole one: nothing is shown of a read half done. A bus of one page is read
// in one step.
import { err, ok, type Result } from "neverthrow";
import type { ClaimPage, ClaimPages } from "../../../ports/bus/bus-store.js";
import type { BusError } from "../bus-errors.js";
import { liveHolder, type Owners } from "../claim-rules.js";
import { claimsPageEntriesMax } from "../limits.js";
import { claimTag } from "../observed.js";
import { ownersOf } from "../prune-rules.js";
import { type BusContext, fromStore } from "./context.js";
import { standingOffers } from "./handoff.js";
import type { Membership } from "./membership.js";
import { type Peers, readPeers } from "./peers.js";
import { type StatusView, viewOf } from "./status.js";

export interface SnapshotSteps {
  /** Does one more step: undefined while steps are left, the whole view (as snapshot gives it) with
   * the last; that view again on any later step. */
  step(): Result<StatusView | undefined, BusError>;
  /** Gives up a read left unfinished: the folder it was listing is closed. */
  cancel(): void;
}

/** Two sorted runs as one (code-unit order, as Array.prototype.sort orders strings). */
function merged(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(b[j]! < a[i]! ? b[j++]! : a[i++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** Sorted runs merged pairwise into one: linear work per level, a few levels for a full claims/. */
function mergeRuns(runs: readonly string[][]): string[] {
  let level = runs;
  while (level.length > 1) {
    const next: string[][] = [];
    for (let i = 0; i < level.length; i += 2) {
      next.push(i + 1 < level.length ? merged(level[i]!, level[i + 1]!) : level[i]!);
    }
    level = next;
  }
  return level[0] ?? [];
}

/** What a step does: list a page, merge the sorted runs, check keys against the marks, make the view. */
type Phase = "list" | "merge" | "check" | "view";

interface Reading {
  phase: Phase;
  peers: Peers;
  owners: Owners;
  pages: ClaimPages;
  pagesRead: number;
  /** Each live owner's keys: a sorted run per page, until merged. */
  runs: Map<string, string[][]>;
  /** The tags of every mark listed. */
  marked: Set<string>;
  /** Each live owner's keys, sorted, once the runs are merged. */
  held: Map<string, string[]>;
  /** Each owner's marked keys, in the same order, as far as the check has come. */
  observed: Map<string, string[]>;
  /** Where the check against the marks stands: owners of `held` done, and keys of the next. */
  checked: { owners: number; keys: number };
}

/** Files one page: each path claim with a live holder under its owner (the view shows no other). */
function takePage(r: Reading, page: ClaimPage): void {
  const fresh = new Map<string, string[]>();
  for (const claim of page.claims) {
    // A file's identity claim is its path claim's second name: the path is shown once.
    if (claim.identity !== undefined || liveHolder(claim, r.owners) === undefined) continue;
    const keys = fresh.get(claim.owner);
    if (keys === undefined) fresh.set(claim.owner, [claim.key]);
    else keys.push(claim.key);
  }
  for (const [owner, keys] of fresh) {
    const runs = r.runs.get(owner);
    if (runs === undefined) r.runs.set(owner, [keys.sort()]);
    else runs.push(keys.sort());
  }
  for (const mark of page.marks) r.marked.add(claimTag(mark));
  r.pagesRead++;
}

/** Checks at most a page's worth of held keys against the marks; true once every key is checked. */
function checkMarks(r: Reading): boolean {
  if (r.marked.size === 0) return true;
  const owners = [...r.held.keys()];
  for (let budget = claimsPageEntriesMax; r.checked.owners < owners.length; ) {
    const owner = owners[r.checked.owners]!;
    const joinToken = r.owners.get(owner)?.joinToken ?? "";
    const keys = r.held.get(owner) ?? [];
    const marked = r.observed.get(owner) ?? [];
    r.observed.set(owner, marked);
    for (; r.checked.keys < keys.length; r.checked.keys++) {
      if (budget-- === 0) return false;
      const key = keys[r.checked.keys]!;
      if (r.marked.has(claimTag({ owner, joinToken, key }))) marked.push(key);
    }
    r.checked = { owners: r.checked.owners + 1, keys: 0 };
  }
  return true;
}

/** The view around the keys already sorted and checked: the rest of it is snapshot's own. */
function viewAround(ctx: BusContext, membership: Membership, r: Reading): Result<StatusView, BusError> {
  const held = r.held;
  const offers = standingOffers(ctx, r.peers.sessions);
  return viewOf(ctx, membership, r.peers, { claims: [], marks: [], offers, unread: new Map() }).map((view) => ({
    ...view,
    sessions: view.sessions.map((row) => ({
      ...row,
      claims: held.get(row.id) ?? [],
      observed: r.observed.get(row.id) ?? [],
    })),
  }));
}

/** Does the work of the phase it is in: "now" when the next phase may follow in the same step (a read
 * of one page is one step), "later" when the loop is given back first. */
function advance(r: Reading): Result<"now" | "later", BusError> {
  const pace = (next: Phase) => {
    r.phase = next;
    return ok(r.pagesRead <= 1 ? ("now" as const) : ("later" as const));
  };
  switch (r.phase) {
    case "list": {
      const page = fromStore(r.pages.next());
      if (page.isErr()) return err(page.error);
      takePage(r, page.value);
      return page.value.whole === undefined ? ok("later") : pace("merge");
    }
    case "merge":
      r.held = new Map([...r.runs].map(([owner, runs]) => [owner, mergeRuns(runs)]));
      return pace("check");
    case "check":
      return checkMarks(r) ? pace("view") : ok("later");
    case "view":
      return ok("now");
    default: {
      const never: never = r.phase;
      return never;
    }
  }
}

export function stepwiseSnapshot(ctx: BusContext, membership: Membership): Result<SnapshotSteps, BusError> {
  const ready = ctx.ready();
  if (ready.isErr()) return err(ready.error);
  let reading: Reading | undefined;
  let view: StatusView | undefined;
  const start = (): Result<Reading, BusError> =>
    // The records first, as snapshot reads them: a claim listed after is judged by them.
    readPeers(ctx).andThen((peers) =>
      fromStore(ctx.store.pageClaims()).map(
        (pages): Reading => ({
          phase: "list",
          peers,
          owners: ownersOf(peers.sessions),
          pages,
          pagesRead: 0,
          runs: new Map(),
          marked: new Set(),
          held: new Map(),
          observed: new Map(),
          checked: { owners: 0, keys: 0 },
        }),
      ),
    );
  const step = (): Result<StatusView | undefined, BusError> => {
    if (view !== undefined) return ok(view);
    if (reading === undefined) {
      const started = start();
      if (started.isErr()) return err(started.error);
      reading = started.value;
    }
    const r = reading;
    while (r.phase !== "view") {
      const next = advance(r);
      if (next.isErr()) return err(next.error);
      if (next.value === "later") return ok(undefined);
    }
    return viewAround(ctx, membership, r).map((whole) => (view = whole));
  };
  return ok({ step, cancel: () => reading?.pages.close() });
}
