// `sessions/<id>.json`: a joined session's record. Read tolerantly (extra fields pass, optional ones
// may be null), written only after the shape this build promises is asserted.
import { err, ok, type Result } from "neverthrow";
import { decodeShaped, either, integer, isNull, record, type Shape, text } from "../shared/shape.js";
import type { SessionRecord } from "./bus-files.js";
import { busId } from "./claim-key.js";
import { labelCharsMax, pathCharsMax, storedFieldCharsMax } from "./limits.js";

const flag: Shape = (value, path) => (typeof value === "boolean" ? undefined : `${path} must be a boolean`);
const absolutePath = text({ minLength: 1, maxLength: pathCharsMax, pattern: /^\// });
const optionalFields = ["started", "bootId", "pidNamespace", "observe", "name", "named"];
/** On disk a record may also lack its pid: judged by its heartbeat, never called dead for it. */
const storedOptionalFields = ["pid", ...optionalFields];

/** What this build writes. */
const writtenShape = record(
  {
    id: busId,
    label: text({ minLength: 1, maxLength: labelCharsMax }),
    pid: integer(1),
    started: text({ minLength: 1, maxLength: storedFieldCharsMax }),
    bootId: text({ minLength: 1, maxLength: storedFieldCharsMax }),
    pidNamespace: text({ minLength: 1, maxLength: storedFieldCharsMax }),
    joinToken: busId,
    cwd: absolutePath,
    root: absolutePath,
    armed: flag,
    wake: flag,
    joinedAt: text({ minLength: 1, maxLength: storedFieldCharsMax }),
    observe: flag,
    name: text({ minLength: 1, maxLength: storedFieldCharsMax }),
    named: flag,
  },
  optionalFields,
);

/** What may be on disk: a newer build's longer label, or a null where this one leaves a field out. */
const storedShape = record(
  {
    id: busId,
    label: text({ minLength: 1, maxLength: storedFieldCharsMax }),
    pid: either(integer(1), isNull),
    started: either(text({ maxLength: storedFieldCharsMax }), isNull),
    bootId: either(text({ maxLength: storedFieldCharsMax }), isNull),
    pidNamespace: either(text({ maxLength: storedFieldCharsMax }), isNull),
    joinToken: busId,
    cwd: absolutePath,
    root: absolutePath,
    armed: flag,
    wake: flag,
    joinedAt: text({ maxLength: storedFieldCharsMax }),
    observe: either(flag, isNull),
    name: either(text({ maxLength: storedFieldCharsMax }), isNull),
    named: either(flag, isNull),
  },
  storedOptionalFields,
);

/** Why a file of sessions/ is not a record this build reads (the store's Unreadable reasons). */
type RecordDecodeError =
  | { kind: "not-json" }
  | { kind: "wrong-shape"; reason: string }
  | { kind: "name-mismatch"; id: string; fileId: string };

type Stored = Omit<SessionRecord, "pid" | "started" | "bootId" | "pidNamespace" | "observe" | "name" | "named"> & {
  observe?: boolean | null;
  name?: string | null;
  named?: boolean | null;
  pid?: number | null;
  started?: string | null;
  bootId?: string | null;
  pidNamespace?: string | null;
};

/** Reads a record; `fileId` is the id its file name says (`<fileId>.json`), which the record must carry. */
export function decodeSessionRecord(json: string, fileId: string): Result<SessionRecord, RecordDecodeError> {
  const parsed = decodeShaped<Stored>(json, storedShape);
  if (parsed.isErr()) return err(parsed.error);
  const stored = parsed.value;
  if (stored.id !== fileId) return err({ kind: "name-mismatch", id: stored.id, fileId });
  const decoded: SessionRecord = {
    id: stored.id,
    label: stored.label,
    joinToken: stored.joinToken,
    cwd: stored.cwd,
    root: stored.root,
    armed: stored.armed,
    wake: stored.wake,
    joinedAt: stored.joinedAt,
  };
  if (typeof stored.pid === "number") decoded.pid = stored.pid;
  // Only the known fields are kept: a newer build's extra fields stay on disk, not in memory.
  if (typeof stored.started === "string" && stored.started !== "") decoded.started = stored.started;
  if (typeof stored.bootId === "string" && stored.bootId !== "") decoded.bootId = stored.bootId;
  if (typeof stored.pidNamespace === "string" && stored.pidNamespace !== "") decoded.pidNamespace = stored.pidNamespace;
  if (stored.observe === false) decoded.observe = false;
  if (typeof stored.name === "string" && stored.name !== "") decoded.name = stored.name;
  if (stored.named === true) decoded.named = true;
  return ok(decoded);
}

/** The file text of a record; a record outside the written shape is a caller's bug. */
export function encodeSessionRecord(sessionRecord: SessionRecord): string {
  const problem = writtenShape(sessionRecord, "");
  if (problem !== undefined) throw new Error(`refusing to write an invalid session record: ${problem}`);
  return `${JSON.stringify(sessionRecord)}\n`;
}
