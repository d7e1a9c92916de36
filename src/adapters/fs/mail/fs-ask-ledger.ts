// `<address>/asks.json`: the asks this session received and has not answered, and the ones it
// answered. A restart needs both: an ask read before a crash can still be answered with
// session_mail_reply, and one answered before it is never answered twice.
import { err, ok, type Result } from "neverthrow";
import type { Address } from "../../../domain/mail/address.js";
import { askLedgerBytesMax } from "../../../domain/mail/limits.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { writeAtomic } from "../shared/fs-files.js";
import { readOwnEntry } from "../shared/fs-read.js";
import { addressFolder, ensureBox, type FsMailContext } from "./fs-boxes.js";

const ledgerName = "asks.json";

/** Temp file and rename: a reader sees the old ledger or the new one, never half of one. */
export function writeAskLedger(disk: FsMailContext, address: Address, text: string): Result<void, StoreError> {
  const folder = addressFolder(disk, address);
  return ensureBox(disk, address, ["tmp"]).andThen(() =>
    writeAtomic(disk.fs, {
      tmpPath: `${folder}/tmp/${ledgerName}.tmp`,
      finalPath: `${folder}/${ledgerName}`,
      text,
      // Like the claim journal: it guards against a crashed process, not a crashed machine.
      durable: false,
      syncFolder: undefined,
      replaceLeftover: true,
    }).map(() => undefined),
  );
}

/** The ledger's text; undefined when there is none, or when what is there is no file of this
 * session's (a link, a folder, too big): then the session starts with an empty ledger. */
export function readAskLedger(disk: FsMailContext, address: Address): Result<string | undefined, StoreError> {
  const read = readOwnEntry(disk.fs, `${addressFolder(disk, address)}/${ledgerName}`, askLedgerBytesMax, disk.uid);
  if (read.isErr()) return err(read.error);
  return ok(read.value.kind === "text" ? read.value.text : undefined);
}
