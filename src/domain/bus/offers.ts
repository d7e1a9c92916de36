// Handoffs that move claims: the offer file's codec, when an offer still stands, and what accepting
// it moves. Pure: the engine reads the offer, the records and the claims, and applies the plan.
import { err, ok, type Result } from "neverthrow";
import { decodeShaped, list, record, text } from "../shared/shape.js";
import type { ClaimName, HandoffOffer } from "./bus-files.js";
import { busId, isClaimKey } from "./claim-key.js";
import type { ClaimOwner } from "./claim-rules.js";
import { labelCharsMax, messageTtlMs, pathCharsMax, pathsPerCallMax, storedFieldCharsMax } from "./limits.js";
import { claimTag } from "./observed.js";

const offerShape = record(
  {
    id: busId,
    from: busId,
    fromToken: busId,
    fromLabel: text({ minLength: 1, maxLength: storedFieldCharsMax }),
    to: busId,
    keys: list(text({ minLength: 1, maxLength: pathCharsMax }), pathsPerCallMax),
    offeredAt: text({ maxLength: storedFieldCharsMax }),
    instances: list(text({ maxLength: storedFieldCharsMax }), pathsPerCallMax),
  },
  ["instances"],
);

export function encodeOffer(offer: HandoffOffer): string {
  if (offer.fromLabel.length > labelCharsMax || offer.keys.length === 0 || !offer.keys.every(isClaimKey)) {
    throw new Error("refusing to write an invalid offer");
  }
  return `${JSON.stringify(offer)}\n`;
}

export function decodeOffer(json: string, fileId: string): Result<HandoffOffer, string> {
  const parsed = decodeShaped<HandoffOffer>(json, offerShape);
  if (parsed.isErr()) return err("wrong-shape");
  const offer = parsed.value;
  if (offer.id !== fileId || offer.keys.length === 0 || !offer.keys.every(isClaimKey)) return err("wrong-shape");
  if (offer.instances !== undefined && offer.instances.length !== offer.keys.length) return err("wrong-shape");
  const { id, from, fromToken, fromLabel, to, keys, offeredAt, instances } = offer;
  return ok({
    id,
    from,
    fromToken,
    fromLabel,
    to,
    keys: [...keys],
    offeredAt,
    ...(instances === undefined ? {} : { instances: [...instances] }),
  });
}

/** Why an offer no longer stands, or undefined while it does. */
export type OfferLapse = "sender-left" | "recipient-left" | "expired";

/** An offer stands while its sender is live under the token it offered with, its recipient is live
 * (or is the reader), and the message TTL has not passed since it was made (by the time the reader
 * trusts: a stepped clock lapses nothing). */
export function offerLapse(
  offer: HandoffOffer,
  owners: ReadonlyMap<string, ClaimOwner>,
  selfId: string | undefined,
  madeMs: number,
  trustedNowMs: number,
): OfferLapse | undefined {
  const sender = owners.get(offer.from);
  if (sender === undefined || sender.state !== "active" || sender.joinToken !== offer.fromToken) return "sender-left";
  const recipient = owners.get(offer.to);
  if (offer.to !== selfId && (recipient === undefined || recipient.state !== "active")) return "recipient-left";
  return trustedNowMs - madeMs >= messageTtlMs ? "expired" : undefined;
}

/** One claim to move: the sender's path claim, its identity claims, and whether it carried a mark. */
interface ClaimMove {
  path: ClaimName;
  identities: ClaimName[];
  marked: boolean;
  /** The create the offered claim came from, when the offer says. */
  instance: string | undefined;
}

interface AcceptPlan {
  moves: ClaimMove[];
  /** Keys this membership holds already (an accept that a crash cut short, taken up again). */
  done: string[];
  /** Keys the sender no longer holds under the offer's token (released since): nothing to move. */
  gone: string[];
}

/** What accepting moves: for each offered key, the sender's claims under the offer's token. */
export function planAccept(
  offer: HandoffOffer,
  self: { id: string; joinToken: string },
  claims: readonly ClaimName[],
  marks: readonly ClaimName[],
): AcceptPlan {
  const marked = new Set(marks.map(claimTag));
  const plan: AcceptPlan = { moves: [], done: [], gone: [] };
  for (const [index, key] of offer.keys.entries()) {
    const onKey = claims.filter((c) => c.key === key);
    const sender = onKey.filter((c) => c.owner === offer.from && c.joinToken === offer.fromToken);
    const path = sender.find((c) => c.identity === undefined);
    if (path !== undefined) {
      const identities = sender.filter((c) => c.identity !== undefined);
      const instance = offer.instances?.[index] || undefined;
      plan.moves.push({ path, identities, marked: marked.has(claimTag(path)), instance });
    } else if (onKey.some((c) => c.identity === undefined && c.owner === self.id && c.joinToken === self.joinToken)) {
      plan.done.push(key);
    } else {
      plan.gone.push(key);
    }
  }
  return plan;
}
