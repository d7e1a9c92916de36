import { err, ok, type Result } from "neverthrow";
import { idPrefixCharsMin, labelFieldCharsMax } from "../limits.js";
import { sanitizeField } from "../text/sanitize.js";
import { type Address, isAddress, isUuid, shortId } from "./address.js";

export interface Addressee {
  address: Address;
  name: string | undefined;
}

export type AddressError =
  | { kind: "empty" }
  | { kind: "self"; address: Address }
  | { kind: "ambiguous"; to: string; candidates: Addressee[] }
  | { kind: "not-found"; to: string };

/** Resolves what a user or model typed as a recipient, in the spec's order. */
export function resolveAddress(
  to: string,
  self: Address,
  running: readonly Addressee[],
): Result<Address, AddressError> {
  const wanted = to.trim();
  if (wanted === "") return err({ kind: "empty" });
  const refuseSelf = (address: Address): Result<Address, AddressError> =>
    address === self ? err({ kind: "self", address }) : ok(address);

  // 1. A running session's address, or any full session id, as given.
  if (running.some((r) => r.address === wanted) || (isUuid(wanted) && isAddress(wanted))) {
    return refuseSelf(wanted as Address);
  }
  if (wanted === self) return err({ kind: "self", address: self });
  // 2. Exact session name, then an id prefix of at least 8 characters. A name that reads like
  // another session's short id must not capture mail typed to that id: both matching is ambiguous.
  const byName = running.filter((r) => r.name === wanted);
  const byPrefix = wanted.length >= idPrefixCharsMin ? running.filter((r) => r.address.startsWith(wanted)) : [];
  const matches = [...byName, ...byPrefix.filter((r) => !byName.includes(r))];
  // 3. One match resolves; several are refused naming each; none is refused.
  if (matches.length === 0) return err({ kind: "not-found", to: wanted });
  if (matches.length > 1) return err({ kind: "ambiguous", to: wanted, candidates: matches });
  return refuseSelf(matches[0]!.address);
}

/** What a listing shows for a session: its name, or the short id when it has none. */
export function displayName(addressee: { address: string; name?: string | undefined }): string {
  return addressee.name !== undefined && addressee.name !== "" ? addressee.name : shortId(addressee.address);
}

export function describeAddressError(error: AddressError): string {
  switch (error.kind) {
    case "empty":
      return "No recipient given.";
    case "self":
      return "A session cannot send mail to itself.";
    case "ambiguous":
      return `"${sanitizeField(error.to, labelFieldCharsMax)}" matches ${error.candidates.length} running sessions: ${error.candidates
        .map((c) => `${sanitizeField(displayName(c), labelFieldCharsMax)} (${c.address})`)
        .join(", ")}. Use the full id.`;
    case "not-found":
      return `No running session is named "${sanitizeField(error.to, labelFieldCharsMax)}" or has an id starting with it. A closed session is reached by its full id.`;
    default: {
      const never: never = error;
      return never;
    }
  }
}
