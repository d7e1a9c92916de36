import { err, ok, type Result } from "neverthrow";
import type { StoreError } from "../../../ports/shared/store-error.js";

/** The errno name of a thrown system error (ENOENT, EEXIST, …), or undefined for anything else. */
function errnoCode(thrown: unknown): string | undefined {
  if (typeof thrown !== "object" || thrown === null || !("code" in thrown)) return undefined;
  const code = (thrown as { code: unknown }).code;
  return typeof code === "string" && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

/** The one errno → StoreError mapping. Anything without an errno code is a bug and is rethrown. */
export function ioError(op: string, path: string, thrown: unknown): StoreError {
  const code = errnoCode(thrown);
  if (code === undefined) throw thrown;
  const message = thrown instanceof Error ? thrown.message : code;
  return { kind: "io", op, path, code, message };
}

/** Runs one system call and turns its errno into a value. */
export function attempt<T>(op: string, path: string, call: () => T): Result<T, StoreError> {
  try {
    return ok(call());
  } catch (thrown) {
    return err(ioError(op, path, thrown));
  }
}

/** True when the error is errno `code`. */
export function hasCode(error: StoreError, code: string): boolean {
  return error.kind === "io" && error.code === code;
}

/** True when the result failed with errno `code`. */
export function failedWith<T>(result: Result<T, StoreError>, code: string): boolean {
  return result.isErr() && hasCode(result.error, code);
}

export function notAFolder(path: string): StoreError {
  return { kind: "not-a-folder", path };
}
