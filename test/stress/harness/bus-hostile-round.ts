// One round of hostile entries: every area of the bus folder mixed, drawn from one seed.
import type { HostileBus, HostileEntry } from "./bus-hostile.js";
import { pick } from "./bus-hostile.js";
import { claimEntry, claimKinds } from "./bus-hostile-claims.js";
import { inboxEntry, inboxKinds, otherInboxEntry, otherInboxKinds } from "./bus-hostile-inbox.js";
import { sessionEntry, sessionKinds } from "./bus-hostile-sessions.js";
import type { SeededRandom } from "./seeded-random.js";

export interface HostileRound {
  entries: HostileEntry[];
  /** Live hostile sessions of this round (their records are entries too). */
  holders: string[];
}

/** `count` entries: two live hostile sessions first (claims need holders), then 3 in 10 in
 * sessions/, 4 in the session's inbox, 1 in inbox/ and 2 in claims/. */
export function drawRound(h: HostileBus, r: SeededRandom, count: number): HostileRound {
  const entries: HostileEntry[] = [sessionEntry(h, r, "active"), sessionEntry(h, r, "active")];
  const holders = entries.map((e) => e.record!.id);
  while (entries.length < count) {
    const area = r.int(0, 9);
    if (area < 3) entries.push(sessionEntry(h, r, pick(r, sessionKinds)));
    else if (area < 7) entries.push(inboxEntry(h, r, pick(r, inboxKinds)));
    else if (area < 8) entries.push(otherInboxEntry(h, r, pick(r, otherInboxKinds)));
    else entries.push(claimEntry(h, r, pick(r, claimKinds), holders));
  }
  return { entries, holders };
}
