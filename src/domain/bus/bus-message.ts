// `inbox/<recipient>/<15-digit send ms>-<message id>.json`: one bus message. Read tolerantly (extra
// fields pass, `paths` may be absent), written only after its shape and caps are asserted.
import { err, ok, type Result } from "neverthrow";
import { decodeShaped, integer, list, oneOf, record, type Shape, text } from "../shared/shape.js";
import { codePointCount } from "../shared/text/code-points.js";
import { utf8Bytes } from "../shared/text/utf8.js";
import type { BusKind, BusMessage } from "./bus-files.js";
import { busId, isBusId, isClaimKey } from "./claim-key.js";
import {
  labelCharsMax,
  messageBytesMax,
  messageTextCharsMax,
  pathCharsMax,
  pathsPerCallMax,
  storedFieldCharsMax,
} from "./limits.js";

const busKinds: readonly BusKind[] = ["message", "event", "ask", "handoff"];

const messageText: Shape = (value, path) => {
  if (typeof value !== "string") return `${path} must be a string`;
  // Code units bound the count's cost before it is taken: two units at most per code point.
  if (value.length > 2 * messageTextCharsMax || codePointCount(value) > messageTextCharsMax) {
    return `${path} must be at most ${messageTextCharsMax} characters`;
  }
  return undefined;
};

const pathKey: Shape = (value, path) =>
  typeof value === "string" && value.length <= pathCharsMax && isClaimKey(value)
    ? undefined
    : `${path} must be a repository-relative path`;

const fields = {
  id: busId,
  from: busId,
  to: busId,
  kind: oneOf(busKinds),
  text: messageText,
  paths: list(pathKey, pathsPerCallMax),
  sentAt: text({ minLength: 1, maxLength: storedFieldCharsMax }),
  hops: integer(0),
};
const writtenShape = record({ ...fields, fromLabel: text({ minLength: 1, maxLength: labelCharsMax }) });
const storedShape = record({ ...fields, fromLabel: text({ minLength: 1, maxLength: storedFieldCharsMax }) }, [
  "paths",
  "hops",
]);

/** Why an inbox file is not a message this build reads (the store's Unreadable reasons). */
type MessageDecodeError = { kind: "not-json" } | { kind: "wrong-shape"; reason: string };

export function decodeBusMessage(json: string): Result<BusMessage, MessageDecodeError> {
  const decoded = decodeShaped<Omit<BusMessage, "paths" | "hops"> & { paths?: string[]; hops?: number }>(
    json,
    storedShape,
  );
  if (decoded.isErr()) return err(decoded.error);
  const stored = decoded.value;
  return ok({
    id: stored.id,
    from: stored.from,
    fromLabel: stored.fromLabel,
    to: stored.to,
    kind: stored.kind,
    text: stored.text,
    paths: stored.paths ?? [],
    sentAt: stored.sentAt,
    // Written before the loop guard, or by another implementation: a person's turn.
    hops: stored.hops ?? 0,
  });
}

/** The file text of a message; one outside the written shape (a `*` recipient, text over the cap,
 * an empty text) is a caller's bug. */
export function encodeBusMessage(message: BusMessage): string {
  const problem = writtenShape(message, "");
  if (problem !== undefined) throw new Error(`refusing to write an invalid bus message: ${problem}`);
  if (message.text === "") throw new Error("refusing to write a bus message without text");
  const json = `${JSON.stringify(message)}\n`;
  // Cannot fire while messageBytesMax covers the shape's caps: the pair of the reader's bound.
  if (utf8Bytes(json) > messageBytesMax) throw new Error("a bus message over messageBytesMax");
  return json;
}

const sentMsDigits = 15;
const fileNamePattern = /^(\d{15})-(.+)\.json$/;

/** `<send time in ms, 15 digits>-<id>.json`: names sort by send time, and tie on mtime by it. */
export function messageFileName(sentAtMs: number, id: string): string {
  if (!Number.isSafeInteger(sentAtMs) || sentAtMs < 0 || sentAtMs >= 10 ** sentMsDigits || !isBusId(id)) {
    throw new Error(`no message file name for ${sentAtMs} and ${JSON.stringify(id)}`);
  }
  return `${String(sentAtMs).padStart(sentMsDigits, "0")}-${id}.json`;
}

/** The message id a file name carries, or undefined when the name is not a message file's. */
export function messageIdOfFileName(name: string): string | undefined {
  const match = fileNamePattern.exec(name);
  const id = match?.[2];
  return id !== undefined && isBusId(id) ? id : undefined;
}
