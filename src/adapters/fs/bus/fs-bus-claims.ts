// `claims/<encoded key>~<owner>~<join token>`: one file per claimed path, every one a hard link of
// one temp file written once. The names carry everything, so a listing of claims/ is the whole
// claim check; no claim file is ever read. A link is an exclusive create: no reader sees half a
// claim, and a claim made twice under one token is found, not made again.
import { err, ok, type Result } from "neverthrow";
import type { ClaimName } from "../../../domain/bus/bus-files.js";
import {
  type ClaimNameError,
  encodeClaimFile,
  encodeClaimName,
  encodeMarkName,
} from "../../../domain/bus/claim-key.js";
import { claimsListedMax } from "../../../domain/bus/limits.js";
import { encodeUtf8 } from "../../../domain/shared/text/utf8.js";
import type { ClaimListing } from "../../../ports/bus/bus-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { removeQuietly, writeAll } from "../shared/fs-files.js";
import { lstatIfThere, unlinkIfThere } from "../shared/fs-leftovers.js";
import { claimVisitor } from "./fs-bus-claim-pages.js";
import {
  ensureOwn,
  type FsBusContext,
  folderPath,
  folderThere,
  ownFolderStats,
  scanFolder,
  tmpName,
} from "./fs-bus-folders.js";

/** One listing, the names decoded; entries that are not regular files (by the listing's own types)
 * or whose names do not decode are counted as ignored. */
export function listClaims(disk: FsBusContext): Result<ClaimListing, StoreError> {
  const folder = folderPath(disk, "claims");
  const listing: ClaimListing = { claims: [], marks: [], ignored: 0, truncated: false };
  const there = ownFolderStats(disk, folder);
  if (there.isErr() || there.value === undefined) return there.map(() => listing);
  const bytes = there.value.size;
  return scanFolder(disk.fs, folder, claimsListedMax, claimVisitor(disk, listing), undefined, bytes).map(
    (truncated) => ({
      ...listing,
      truncated,
    }),
  );
}

/** A key the name cannot hold comes back as the errno the kernel would give for it. */
function nameError(path: string, problem: ClaimNameError): StoreError {
  switch (problem.kind) {
    case "key-too-long":
      return {
        kind: "io",
        op: "link",
        path,
        code: "ENAMETOOLONG",
        message: `the claim name for ${problem.key} is ${problem.nameBytes} bytes, over ${problem.nameBytesMax}`,
      };
    case "bad-key":
      return {
        kind: "io",
        op: "link",
        path,
        code: "EINVAL",
        message: `not a repository-relative path: ${problem.key}`,
      };
    case "bad-id":
      return {
        kind: "io",
        op: "link",
        path,
        code: "EINVAL",
        message: `not an id for ${problem.field}: ${problem.value}`,
      };
    default: {
      const never: never = problem;
      return never;
    }
  }
}

export function createClaims(
  disk: FsBusContext,
  owner: string,
  joinToken: string,
  label: string,
  keys: readonly string[],
  identities: readonly { key: string; identity: string }[],
  observed: boolean,
): Result<void, StoreError> {
  const folder = folderPath(disk, "claims");
  const paths: string[] = [];
  const claims = [...keys.map((key) => ({ key })), ...identities];
  for (const claim of claims) {
    const name = encodeClaimName({ ...claim, owner, joinToken });
    if (name.isErr()) return err(nameError(folder, name.error));
    paths.push(`${folder}/${name.value}`);
  }
  // The marks go last: a claim seen without its mark yet reads as one that never lapses.
  for (const key of observed ? keys : []) {
    const name = encodeMarkName({ key, owner, joinToken });
    if (name.isErr()) return err(nameError(folder, name.error));
    paths.push(`${folder}/${name.value}`);
  }
  if (paths.length === 0) return ok(undefined);
  const ready = ensureOwn(disk, folder).andThen(() => ensureOwn(disk, folderPath(disk, "tmp")));
  if (ready.isErr()) return err(ready.error);
  // One file, written once, linked under every name: k links and one write, not k files. The
  // draft is no publication (nobody reads tmp/), so it is written in place, not renamed.
  const draft = tmpName(disk, "claim", ".json");
  const written = writeDraft(disk, draft, encodeClaimFile(disk.entropy.uuid(), owner, joinToken, label, keys));
  if (written.isErr()) return err(written.error);
  const made: string[] = [];
  const linked = linkAll(disk, draft, paths, made);
  removeQuietly(disk.fs, draft);
  if (linked.isOk()) return ok(undefined);
  // All or none: the links this call made go; one that was there before (held already) stays.
  for (const path of made) removeQuietly(disk.fs, path);
  return err(linked.error);
}

/** Owner-only, like every file of the store. */
const draftMode = 0o600;

function writeDraft(disk: FsBusContext, path: string, text: string): Result<void, StoreError> {
  const { O_CREAT, O_EXCL, O_WRONLY, O_NOFOLLOW } = disk.fs.constants;
  const flags = O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW;
  const opened = attempt("open", path, () => disk.fs.openSync(path, flags, draftMode));
  if (opened.isErr()) return err(opened.error);
  const fd = opened.value;
  const written = writeAll(disk.fs, fd, path, encodeUtf8(text));
  const closed = attempt("close", path, () => disk.fs.closeSync(fd));
  const done = written.andThen(() => closed);
  if (done.isErr()) removeQuietly(disk.fs, path);
  return done;
}

function linkAll(
  disk: FsBusContext,
  draft: string,
  paths: readonly string[],
  made: string[],
): Result<void, StoreError> {
  for (const path of paths) {
    const linked = attempt("link", path, () => disk.fs.linkSync(draft, path));
    if (linked.isOk()) {
      made.push(path);
      continue;
    }
    if (!failedWith(linked, "EEXIST")) return err(linked.error);
    // The same name: this session holds the key under this very token already. Anything but a
    // regular file there (a folder, a link) is no claim of its, and the create fails.
    const seen = lstatIfThere(disk.fs, path);
    if (seen.isErr()) return err(seen.error);
    if (seen.value?.isFile() !== true) return err(linked.error);
  }
  return ok(undefined);
}

/** Unlinks each claim's file; one already gone counts as removed. Every claim is tried, and the
 * first failure is returned. */
export function removeClaims(disk: FsBusContext, claims: readonly ClaimName[]): Result<void, StoreError> {
  return unlinkNamed(disk, claims, encodeClaimName);
}

/** Unlinks the file `name` gives each claim in claims/ (a claim's own, or its mark); a claim with no
 * name was never made (a listing decodes only valid names), and one already gone counts as removed. */
export function unlinkNamed(
  disk: FsBusContext,
  claims: readonly ClaimName[],
  name: (claim: ClaimName) => Result<string, unknown>,
): Result<void, StoreError> {
  const folder = folderPath(disk, "claims");
  const there = folderThere(disk, folder);
  if (there.isErr() || !there.value) return there.map(() => undefined);
  let failure: StoreError | undefined;
  for (const claim of claims) {
    const named = name(claim);
    if (named.isErr()) continue;
    const gone = unlinkIfThere(disk.fs, `${folder}/${named.value}`);
    if (gone.isErr() && failure === undefined) failure = gone.error;
  }
  return failure === undefined ? ok(undefined) : err(failure);
}
