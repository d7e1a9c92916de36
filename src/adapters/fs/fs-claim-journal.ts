// `<address>/claiming.json`: the names a scan is about to claim, so a restart finishes delivering them.
import { err, ok, type Result } from "neverthrow";
import { envelopeFileBytesMax, folderEntriesMax } from "../../domain/limits.js";
import type { Address } from "../../domain/mail/address.js";
import type { StoreError } from "../../ports/mail-store.js";
import { addressFolder, checkBox, ensureBox, type StoreContext } from "./fs-boxes.js";
import { attempt, failedWith } from "./fs-errors.js";
import { assertEntryName, checkFolder, isEntryName, readEntry, writeAtomic } from "./fs-files.js";

const journalName = "claiming.json";
/** In tmp/ so that a crashed writer's leftover is swept like any other. */
const journalTmpName = "claiming.json.tmp";

export function writeClaimJournal(
  ctx: StoreContext,
  address: Address,
  names: readonly string[],
): Result<void, StoreError> {
  const path = `${addressFolder(ctx, address)}/${journalName}`;
  if (names.length === 0) {
    const removed = attempt("unlink", path, () => ctx.fs.unlinkSync(path));
    return failedWith(removed, "ENOENT") ? ok(undefined) : removed;
  }
  for (const name of names) assertEntryName(name);
  const text = JSON.stringify(names);
  const write = () =>
    writeAtomic(ctx.fs, {
      tmpPath: `${addressFolder(ctx, address)}/tmp/${journalTmpName}`,
      finalPath: path,
      text,
      // A journal guards against a crashed process, not a crashed machine: the rename is enough.
      durable: false,
      syncFolder: undefined,
      replaceLeftover: true,
    });
  // The temp file is created in tmp/: one lstat first, since through a tmp/ swapped for a link it
  // would be created outside the mail root. tmp/ is made only when it is missing.
  const tmp = checkFolder(ctx.fs, `${addressFolder(ctx, address)}/tmp`);
  if (failedWith(tmp, "ENOENT")) return ensureBox(ctx, address, ["tmp"]).andThen(write);
  return tmp.andThen(write);
}

/** A missing, unreadable or malformed journal reads as empty: a bad journal must never stop the
 * session. Names that could not be mail (dot-files, paths) are dropped. Only errno failures are errors. */
export function readClaimJournal(ctx: StoreContext, address: Address): Result<string[], StoreError> {
  const checked = checkBox(ctx, address, []);
  if (failedWith(checked, "ENOENT")) return ok([]);
  if (checked.isErr()) return err(checked.error);
  const path = `${addressFolder(ctx, address)}/${journalName}`;
  return readEntry(ctx.fs, path, envelopeFileBytesMax).map((found) =>
    found.kind === "text" ? parseJournal(found.text) : [],
  );
}

function parseJournal(text: string): string[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  const names = raw.filter((name): name is string => typeof name === "string" && isEntryName(name));
  return names.slice(0, folderEntriesMax);
}
