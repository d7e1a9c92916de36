// /sessions outside the TUI: the board's sessions and claims as plain lines, for piContext.ui.notify in
// rpc and stderr in print and json. Peer strings are sanitized: a terminal may show them raw.
import type { BoardSnapshot, SessionRow } from "./board-model.js";
import { claimNotes, mailWords, oneLine, shownName, unreadCount, visibleSessions } from "./board-rows.js";

function selfLine(snapshot: BoardSnapshot): string {
  const self = snapshot.self;
  const mail = snapshot.mailPending === undefined ? "" : ` Mail: ${snapshot.mailPending} pending.`;
  if (!self.joined) return `This session has not joined the bus.${mail}`;
  return `This session: ${oneLine(self.label ?? self.id)}, listening: ${self.listening}.${mail}`;
}

function sessionLine(row: SessionRow): string {
  const label = `${shownName(row)}${row.self ? " (you)" : ""}`;
  const mail = row.mail === undefined ? "" : `, ${mailWords(row)}`;
  if (row.state === "mail only") return `  ${label} (${oneLine(row.id)}): mail only${mail}`;
  const listening = row.state === "gone" ? "" : `, ${row.listening}`;
  const claims = row.claims.length === 0 ? "no claims" : `claims: ${row.claims.map(oneLine).join(", ")}`;
  return `  ${label} (${oneLine(row.id)}): ${row.state}${mail}${listening}, ${unreadCount(row)} unread, ${claims}`;
}

/** The compact listing: this session, every session with its state, listening, unread count and
 * claims, then every claim with its owner. */
export function formatListing(snapshot: BoardSnapshot): string {
  const sessions = visibleSessions(snapshot);
  const lines = [selfLine(snapshot)];
  if (sessions.length === 0) lines.push("Nobody has joined the bus on this repository yet.");
  else lines.push(`Sessions (${sessions.length}):`, ...sessions.map(sessionLine));
  if (snapshot.claims.length === 0) lines.push("Claims: none.");
  else {
    lines.push(`Claims (${snapshot.claims.length}):`);
    for (const claim of snapshot.claims) {
      const notes = claimNotes(claim);
      const noted = notes.length === 0 ? "" : ` (${notes.join(", ")})`;
      lines.push(`  ${oneLine(claim.key)}: ${oneLine(claim.ownerLabel)}${claim.own ? " (you)" : ""}${noted}`);
    }
  }
  return lines.join("\n");
}
