// Envelopes written the way the engine writes them, and what a box on disk holds.
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import type { Address } from "../../../src/domain/mail/address.js";
import { decodeEnvelope, type Envelope, type MailKind, type ReplyStatus } from "../../../src/domain/mail/envelope.js";
import { isoFromMs } from "../../../src/domain/shared/text/iso-time.js";

export function newAddress(): Address {
  return randomUUID() as Address;
}

/** The nine fields exactly as the engine's outbox fills them (a fresh UUID, ts from the send time). */
export function newEnvelope(
  fields: { from: Address; to: Address; kind: MailKind; body: string; inReplyTo?: string[]; status?: ReplyStatus },
  nowMs: number,
): Envelope {
  return {
    id: randomUUID(),
    from: fields.from,
    to: fields.to,
    kind: fields.kind,
    hops: 0,
    in_reply_to: fields.inReplyTo ?? [],
    status: fields.status ?? "",
    ts: isoFromMs(nowMs),
    body: fields.body,
  };
}

/** Entry names of one box, sorted; [] when the box does not exist. */
export function boxNames(root: string, address: Address, box: "tmp" | "new" | "cur" | "sent"): string[] {
  try {
    return readdirSync(`${root}/${address}/${box}`).sort();
  } catch {
    return [];
  }
}

const fileNameShape = /^\d{15}-(.+)\.json$/;

export interface BoxContents {
  /** Envelope ids of the files that decoded, in name order. */
  ids: string[];
  /** Every file that is not a whole envelope of the convention: torn, empty, misnamed. */
  problems: string[];
}

/** Reads every file of new/ or cur/: each must decode, and its name must carry its own id. */
export function readBox(root: string, address: Address, box: "new" | "cur"): BoxContents {
  const ids: string[] = [];
  const problems: string[] = [];
  for (const name of boxNames(root, address, box)) {
    const text = readFileSync(`${root}/${address}/${box}/${name}`, "utf8");
    const decoded = decodeEnvelope(text);
    const named = fileNameShape.exec(name)?.[1];
    if (decoded.isErr()) problems.push(`${box}/${name}: ${decoded.error.kind} (${text.length} chars)`);
    else if (named !== decoded.value.id) problems.push(`${box}/${name}: holds id ${decoded.value.id}`);
    else ids.push(decoded.value.id);
  }
  return { ids, problems };
}

/** The envelope id a file name of the convention carries. */
export function idOfName(name: string): string | undefined {
  return fileNameShape.exec(name)?.[1];
}
