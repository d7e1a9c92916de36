// `send`: one file per recipient. A fan-out can be partial: it reports both lists,
// and only reaching nobody is a failure.
import { err, ok, type Result } from "neverthrow";
import { isoFromMs } from "../../shared/text/iso-time.js";
import type { BusError, FailedDelivery } from "../bus-errors.js";
import type { BusKind, BusMessage } from "../bus-files.js";
import { resolveClaimPaths } from "../claim-paths.js";
import { pathsPerCallMax } from "../limits.js";
import { checkText, isBusKind, type Recipient, resolveRecipients } from "../sending-rules.js";
import type { BusContext } from "./context.js";
import { makeOffer, offeredClaims } from "./handoff.js";
import type { Membership } from "./membership.js";
import { pathLookup } from "./path-lookup.js";
import { readPeers } from "./peers.js";

export interface SendRequest {
  to?: string | undefined;
  text?: string | undefined;
  kind?: string | undefined;
  paths?: readonly string[] | undefined;
}

export interface SendReport {
  messageId: string;
  kind: BusKind;
  /** Repository-relative keys of the paths named. */
  paths: string[];
  delivered: Recipient[];
  /** Not written for these: ask again, never repeat the send (the delivered would get it twice). */
  failed: FailedDelivery[];
  /** The file each delivered copy was written as, in its recipient's inbox. */
  files: SentFile[];
}

/** One copy of a sent message: its recipient and its file name there. */
export interface SentFile {
  to: string;
  name: string;
}

interface Checked {
  to: string;
  text: string;
  kind: BusKind;
  paths: string[];
}

/** Everything a send can refuse before it touches the bus: nothing is joined or written for it. */
function checkRequest(ctx: BusContext, request: SendRequest): Result<Checked, BusError> {
  if (request.to === undefined || request.to.trim() === "") return err({ kind: "missing", field: "to" });
  if (request.text === undefined) return err({ kind: "missing", field: "text" });
  const kind = request.kind ?? "message";
  if (!isBusKind(kind)) return err({ kind: "unknown-kind", given: kind });
  const text = checkText(request.text);
  if (text.isErr()) return err(text.error);
  const given = request.paths ?? [];
  if (given.length > pathsPerCallMax) return err({ kind: "too-many-paths", count: given.length, max: pathsPerCallMax });
  const paths = resolveClaimPaths(given, ctx.place, pathLookup(ctx));
  if (paths.isErr()) return err(paths.error);
  return ok({ to: request.to, text: text.value, kind, paths: paths.value });
}

/** `hops`: the hop count of the turn that sends (0 for a person's), carried by every message. */
export function send(
  ctx: BusContext,
  membership: Membership,
  request: SendRequest,
  hops: number,
): Result<SendReport, BusError> {
  const checked = checkRequest(ctx, request);
  if (checked.isErr()) return err(checked.error);
  const { to, text, kind, paths } = checked.value;
  const identity = membership.identity();
  if (identity === undefined) return err({ kind: "not-started" });
  const ready = ctx.ready();
  if (ready.isErr()) return err(ready.error);
  const peers = readPeers(ctx);
  if (peers.isErr()) return err(peers.error);
  const addressees = peers.value.sessions.map((s) => ({
    id: s.record.id,
    label: s.record.label,
    name: s.record.name,
    state: s.state,
  }));
  // Recipients before the implicit join, so a send refused for its `to` leaves this session off the
  // bus. Off the bus it has no label yet: only its id names it.
  const recipients = resolveRecipients(
    to,
    kind,
    { id: identity.id, label: membership.member()?.label ?? "" },
    addressees,
  );
  if (recipients.isErr()) return err(recipients.error);
  // A handoff with paths offers the sender's claims on them: refused unless it holds every one.
  const offers = kind === "handoff" && paths.length > 0;
  const held = offers ? offeredClaims(ctx, membership, paths) : ok([]);
  if (held.isErr()) return err(held.error);
  const self = membership.ensureJoined();
  if (self.isErr()) return err(self.error);
  const nowMs = ctx.clock.now();
  const messageId = ctx.entropy.uuid();
  const offeredTo = offers ? recipients.value[0] : undefined;
  if (offeredTo !== undefined) {
    const made = makeOffer(ctx, self.value, offeredTo.id, messageId, held.value);
    if (made.isErr()) return err(made.error);
  }
  const report: SendReport = { messageId, kind, paths, delivered: [], failed: [], files: [] };
  for (const recipient of recipients.value) {
    const message: BusMessage = {
      id: messageId,
      from: self.value.id,
      fromLabel: self.value.label,
      to: recipient.id,
      kind,
      text,
      paths,
      sentAt: isoFromMs(nowMs),
      hops,
    };
    const written = ctx.store.deliver(message, nowMs);
    if (written.isOk()) {
      report.delivered.push(recipient);
      report.files.push({ to: recipient.id, name: written.value });
    } else report.failed.push({ ...recipient, error: written.error });
  }
  if (report.delivered.length > 0) return ok(report);
  // Nobody heard of the offer: it stands for nothing.
  if (offeredTo !== undefined) ctx.store.removeOffer(messageId);
  return err({ kind: "nobody-reached", failed: report.failed });
}
