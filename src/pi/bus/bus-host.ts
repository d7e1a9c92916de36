// The BusHost port over Pi: a wake is a visible custom message that starts a turn; warnings go to
// Pi's UI. After the session is replaced every piContext call throws, so each call is guarded.

import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { describeBusError, describeBusStoreError } from "../../domain/bus/bus-errors.js";
import { labelCharsMax } from "../../domain/bus/limits.js";
import { sanitizeField } from "../../domain/shared/text/sanitize.js";
import type { BusHost, BusWarning } from "../../ports/bus/bus-host.js";
import { askMailMode } from "../shared/roster.js";
import { askTurnHops } from "../shared/turn-hops.js";
import { noticeContent, noticeIds, noticeType } from "./notice.js";
import { mailFacts } from "./roster.js";
import type { ShortIds } from "./short-ids.js";
import { busOpenedText } from "./texts.js";

/** The footer entry of unread bus mail, beside the mailbox's (`session-mail`). */
const unreadStatusKey = "session-bus";

/** `bus: 3 unread`, or nothing when none waits. */
function unreadStatus(unread: { files: number; atLeast: boolean } | undefined): string | undefined {
  return unread === undefined ? undefined : `bus: ${unread.files}${unread.atLeast ? "+" : ""} unread`;
}

function warningText(warning: BusWarning): string {
  switch (warning.kind) {
    case "displaced":
      // The same words as the refused read: one sentence for one fact.
      return describeBusError(warning);
    case "record-lost":
      return warning.label === undefined
        ? "This session's bus record was pruned (the process was suspended too long): it is off the bus and its claims are free; join again."
        : `This session's bus record was pruned (the process was suspended too long): it joined again as ${sanitizeField(warning.label, labelCharsMax)}, and the paths it held are free.`;
    case "bus-opened":
      return busOpenedText(warning);
    case "hop-limit": {
      const from = warning.fromLabels.map((l) => sanitizeField(l, labelCharsMax)).join(", ");
      return `Bus mail from ${from} did not wake this session: it came ${warning.hops} hops into a chain of sessions waking each other, and the limit is ${warning.limit} (hopLimit in session-mail.json). It is shown with your next prompt.`;
    }
    case "store-failed":
      return `The bus could not ${warning.op === "watch" ? "read this session's inbox" : warning.op === "heartbeat" ? "write this session's heartbeat" : "remove this session's record"}: ${describeBusStoreError(warning.error)}.`;
    default: {
      const never: never = warning;
      return never;
    }
  }
}

export function createBusHost(
  pi: ExtensionAPI,
  piContext: ExtensionContext,
  isLive: () => boolean,
  membershipMayHaveChanged: () => void,
  /** Inside the session's shutdown: a warning about leaving (a record that could not be removed)
   * is still shown, though the session is no longer live. */
  isLeaving: () => boolean,
  shortIds: ShortIds,
): BusHost {
  return {
    raiseTurn(notice) {
      if (!isLive()) return;
      const { content, details } = noticeContent(notice, shortIds.among(noticeIds(notice)));
      pi.sendMessage({ customType: noticeType, content, display: true, details }, { triggerTurn: true });
    },
    isIdle() {
      try {
        return isLive() && piContext.isIdle();
      } catch {
        return false;
      }
    },
    recorded(messageIds) {
      // Read at shutdown too (no longer live): the session's entries are still this session's.
      const wanted = new Set(messageIds);
      const found = new Set<string>();
      try {
        for (const entry of piContext.sessionManager.getEntries()) {
          if (entry.type !== "message") continue;
          for (const id of inboxIdsOf(entry.message)) if (wanted.has(id)) found.add(id);
        }
      } catch {
        // Unknown: nothing counts as recorded, so what was shown goes back rather than being lost.
      }
      return found;
    },
    warn(warning) {
      const leaving = isLeaving();
      if (!isLive() && !leaving) return;
      // Leaving, the label is announced gone by the shutdown itself.
      if (!leaving) membershipMayHaveChanged();
      try {
        piContext.ui.notify(warningText(warning), "warning");
      } catch {
        // A warning is not worth a crash of the session.
      }
    },
    // The mailbox's count for a turn its mail started: one loop guard for both halves.
    peerTurnHops: () => askTurnHops(pi.events),
    // The mailbox's running sessions' names: a label may not be one, or mail to it turns ambiguous.
    wakeHeld: () => askMailMode(pi.events) !== "accept",
    mailNames: () =>
      [...mailFacts(pi).values()].flatMap((f) => (f.self || f.name === undefined ? [] : [{ id: f.id, name: f.name }])),
    unreadChanged(unread) {
      if (!isLive()) return;
      try {
        piContext.ui.setStatus(unreadStatusKey, unreadStatus(unread));
      } catch {
        // The footer is a hint: not worth a crash of the session.
      }
    },
  };
}

/** The message ids an `inbox` result of the session tool carries in its details. */
function inboxIdsOf(message: unknown): string[] {
  const m = message as { role?: unknown; toolName?: unknown; details?: { action?: unknown; ids?: unknown } };
  if (m?.role !== "toolResult" || m.toolName !== "session" || m.details?.action !== "inbox") return [];
  const ids = m.details.ids;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
}
