// /mailbox: show this session's address and the running sessions, send a request, or prune closed
// sessions' folders.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { resolveAddress, uniquePrefixes } from "../../domain/mail/addressing.js";
import type { MailboxEngine } from "../../domain/mail/engine/index.js";
import { labelFieldCharsMax } from "../../domain/mail/limits.js";
import { describePruned } from "../../domain/mail/prune-rules.js";
import { describeStoreError } from "../../domain/mail/store-errors.js";
import { sanitizeField } from "../../domain/shared/text/sanitize.js";
import { completeRecipient, parseMailboxCommand, type RecipientChoice } from "./command-args.js";
import { busFacts } from "./roster.js";
import { describeMailbox } from "./roster-texts.js";
import { describeCancelError, describeCancelled, describeMailMode, describeSentList } from "./sent-texts.js";
import {
  asErrorNotice,
  describeNothingToSend,
  describeRequestSent,
  describeSendError,
  describeUnterminated,
} from "./texts.js";

type EngineRef = () => MailboxEngine | undefined;

const usage =
  "Usage: /mailbox (show this session's address), /mailbox <to> <text>, /mailbox sent, /mailbox cancel <id>, /mailbox hold|accept|refuse, /mailbox prune";

/** The other running sessions, as completion offers them. A name is offered only when typing it
 * reaches that session, as a send resolves it: a name two sessions share, or one read as an id (a
 * UUID, or another running session's address), is offered by the session's unique prefix instead. */
function recipientChoices(engine: MailboxEngine): RecipientChoice[] {
  const sessions = engine.list();
  const self = sessions.find((s) => s.self)?.address;
  const prefixes = uniquePrefixes(sessions);
  const reaches = (name: string, address: string) =>
    self !== undefined && resolveAddress(name, self, sessions).unwrapOr(undefined) === address;
  return sessions
    .filter((s) => !s.self)
    .map((s): RecipientChoice => {
      const prefix = prefixes.get(s.address) ?? s.address;
      const description = `${s.address} · ${s.state}`;
      if (s.name === undefined || s.name === "") return { shown: prefix, prefix, description };
      if (reaches(s.name, s.address)) return { shown: s.name, prefix, description };
      const name = sanitizeField(s.name, labelFieldCharsMax);
      return { shown: prefix, prefix, sharedName: s.name, description: `${name} · ${description}` };
    });
}

export function registerMailboxCommand(pi: ExtensionAPI, engine: EngineRef): void {
  pi.registerCommand("mailbox", {
    description:
      "Show this session's mail address and the running sessions, send a request to another session, list what this session sent (sent), withdraw what is still queued (cancel <id>), or prune closed sessions' mailboxes",
    getArgumentCompletions(typed) {
      const current = engine();
      return current === undefined ? null : completeRecipient(typed, recipientChoices(current));
    },
    async handler(args, piContext) {
      const current = engine();
      if (current === undefined) {
        piContext.ui.notify("This session's mailbox is not running.", "error");
        return;
      }
      const command = parseMailboxCommand(args);
      switch (command.kind) {
        case "show":
          piContext.ui.notify(describeMailbox(current.identity(), current.list(), busFacts(pi)), "info");
          return;
        case "prune": {
          const pruned = current.prune();
          if (pruned.isErr()) piContext.ui.notify(`Prune failed: ${describeStoreError(pruned.error)}`, "error");
          else piContext.ui.notify(describePruned(pruned.value), "info");
          return;
        }
        case "mode": {
          const heldBack = current.footer().heldBack ?? 0;
          current.setMailMode(command.mode);
          piContext.ui.notify(describeMailMode(command.mode, heldBack), "info");
          return;
        }
        case "sent":
          piContext.ui.notify(describeSentList(current.sent(), Date.now()), "info");
          return;
        case "cancel": {
          const cancelled = current.cancel(command.id);
          if (cancelled.isErr()) piContext.ui.notify(describeCancelError(cancelled.error), "error");
          else piContext.ui.notify(describeCancelled(cancelled.value), "info");
          return;
        }
        case "send": {
          const sent = current.request(command.to, command.text, "command");
          if (sent.isErr()) piContext.ui.notify(asErrorNotice(describeSendError(sent.error)), "error");
          else
            piContext.ui.notify(
              describeRequestSent(sent.value),
              sent.value.unsynced === undefined ? "info" : "warning",
            );
          return;
        }
        case "unterminated":
          piContext.ui.notify(describeUnterminated(command.rest), "error");
          return;
        case "no-text":
          piContext.ui.notify(describeNothingToSend(command.recipient), "warning");
          return;
        case "usage":
          piContext.ui.notify(usage, "warning");
          return;
        default: {
          const never: never = command;
          return never;
        }
      }
    },
  });
}
