// What each process does to the shared volume, as ground truth for the invariants: which inbox it
// claims from (only one live process may: two on one session id would share its claim journal and
// lose each other's claims), and whether it has published its running record.
import type { FsLike } from "../../../src/adapters/fs/shared/fs-like.js";
import type { Instance, Session, World } from "./world.js";

/** The process `self` sees the volume through this: each of its claims (a rename from an address's
 * new/ into its cur/) is noted, and one made after another live process claimed from that inbox
 * since this one's last claim is a violation; a rename that publishes its session's running record marks it as written. */
export function observeProcess(world: World, session: Session, self: () => Instance | undefined): FsLike {
  const record = `/running/${session.address}.json`;
  return new Proxy(world.fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key !== "renameSync" || typeof value !== "function") return value;
      return (from: string, to: string) => {
        (value as (a: string, b: string) => void).call(target, from, to);
        const me = self();
        if (me === undefined) return;
        if (to.endsWith(record)) world.recordWriters.add(me);
        const at = /^(.*)\/new\/[^/]+$/.exec(from);
        if (at?.[1] !== undefined && to.startsWith(`${at[1]}/cur/`)) noteClaim(world, session, me, at[1], to);
      };
    },
  });
}

function noteClaim(world: World, session: Session, me: Instance, inbox: string, to: string): void {
  // Each claimer's latest claim, in the order made: the latest entry is the newest claim.
  const claimers = world.claimers.get(inbox) ?? new Map<Instance, number>();
  world.claimers.set(inbox, claimers);
  const mine = claimers.get(me);
  // An inbox may pass from a live process to another (its owner record was lost, and it learns so
  // at its next owner check); the harm is two taking turns: this one claims again after another
  // live process claimed since this one's last claim.
  for (const [other, at] of claimers) {
    if (mine !== undefined && other !== me && at > mine && other.agent.alive && !other.crash.crashed) {
      world.violations.push(
        `two live processes claim from one inbox: ${session.label} (pid ${me.pid}) and pid ${other.pid}, at ${to}`,
      );
    }
  }
  claimers.set(me, ++world.claimCount);
}
