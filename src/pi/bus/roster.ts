// The bus's half of the one roster: what it answers the mailbox (each live member's label, claims
// and listening mode), and the mailbox's facts it asks for (names, busy or idle, whom each waits on).
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { BusEngine, StatusView } from "../../domain/bus/engine/index.js";
import { answerBusFacts, askMailFacts, type BusFact, type MailFact, type MailFacts } from "../shared/roster.js";

/** The live members of a snapshot as the mailbox lists them. */
function busFactsOf(view: StatusView): BusFact[] {
  return view.sessions
    .filter((s) => s.state === "active")
    .map((s) => ({ id: s.id, label: s.label, claims: s.claims.length, listening: s.listening, self: s.self }));
}

/** Answers the mailbox from a snapshot (a read that prunes nothing); nothing when the bus is off. */
export function answerBusRoster(pi: ExtensionAPI, engine: (quiet: boolean) => BusEngine | undefined): void {
  answerBusFacts(pi.events, () => {
    const view = engine(true)?.snapshot();
    return view?.isOk() ? busFactsOf(view.value) : undefined;
  });
}

/** The mailbox's facts by session id (empty when the mailbox is not loaded or not started). */
export function mailFacts(pi: ExtensionAPI): ReadonlyMap<string, MailFact> {
  return askMailFacts(pi.events);
}

/** The mailbox's running sessions in this worktree that are not on the bus, by name. */
export function mailOnly(view: StatusView, mail: MailFacts): MailFact[] {
  const members = new Set(view.sessions.filter((s) => s.state === "active").map((s) => s.id));
  const inRepo = (cwd: string) => cwd === view.root || cwd.startsWith(`${view.root}/`);
  const named = (f: MailFact) => f.name ?? f.id;
  return [...mail.values()]
    .filter((f) => !members.has(f.id) && !f.self && inRepo(f.cwd))
    .sort((a, b) => named(a).localeCompare(named(b)) || a.id.localeCompare(b.id));
}
