// The mailbox's half of the one roster: what it answers the bus (each running session's name, busy
// or idle, whom it waits on), and the bus's facts it asks for to list sessions in one line each.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { MailboxEngine } from "../../domain/mail/engine/index.js";
import { answerMailFacts, askBusFacts, type BusFacts } from "../shared/roster.js";
import { namer } from "./roster-texts.js";

/** Answers the bus's questions from `engine()` (nothing before the mailbox starts). */
export function answerMailRoster(pi: ExtensionAPI, engine: () => MailboxEngine | undefined): void {
  answerMailFacts(pi.events, () => {
    const current = engine();
    if (current === undefined) return undefined;
    const sessions = current.list();
    const nameOf = namer(sessions);
    return sessions.map((s) => ({
      id: s.address,
      ...(s.name === undefined || s.name === "" ? {} : { name: s.name }),
      cwd: s.cwd,
      state: s.state,
      ...(s.waitingOn === "" ? {} : { waitingOn: nameOf(s.waitingOn) ?? s.waitingOn }),
      stopped: s.stopped,
      self: s.self,
      ...(s.self ? { pending: current.footer().pending } : {}),
    }));
  });
}

/** What the bus of this process knows of each session on its repository (empty without a bus). */
export function busFacts(pi: ExtensionAPI): BusFacts {
  return askBusFacts(pi.events);
}
