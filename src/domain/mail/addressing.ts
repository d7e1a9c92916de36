import { err, ok, type Result } from "neverthrow";
import { sameLabel } from "../shared/text/same-label.js";
import { sanitizeField } from "../shared/text/sanitize.js";
import { uniquePrefixes as sharedUniquePrefixes } from "../shared/unique-prefix.js";
import { type Address, isAddress, isUuid, shortId } from "./address.js";
import { idPrefixCharsMin, labelFieldCharsMax } from "./limits.js";

export interface Addressee {
  address: Address;
  name: string | undefined;
  /** Its bus label, when it is on the bus of its process: reached like a name, in any case. */
  label?: string | undefined;
}

/** A session an ambiguous recipient matched, with the shortest prefix that reaches it alone. */
export interface Candidate extends Addressee {
  prefix: string;
}

export type AddressError =
  | { kind: "empty" }
  | { kind: "self"; address: Address }
  | { kind: "ambiguous"; to: string; candidates: Candidate[] }
  | { kind: "not-found"; to: string };

/** Resolves what a user or model typed as a recipient, in the spec's order; `self` (undefined for a
 * reader that is no session) is refused. */
export function resolveAddress(
  to: string,
  self: Address | undefined,
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
  if (self !== undefined && wanted === self) return err({ kind: "self", address: self });
  // 2. Exact session name or bus label, then an id prefix of at least 8 characters: a name is the
  // stronger claim. A session that takes a name another session's id starts with is warned when it does.
  const byName = running.filter((r) => r.name === wanted || (r.label !== undefined && sameLabel(r.label, wanted)));
  const matches =
    byName.length > 0 || wanted.length < idPrefixCharsMin
      ? byName
      : running.filter((r) => r.address.startsWith(wanted));
  // 3. One match resolves; several are refused naming each; none is refused.
  if (matches.length === 0) return err({ kind: "not-found", to: wanted });
  if (matches.length > 1) {
    const prefixes = uniquePrefixes(running);
    const candidates = matches.map((m) => ({ ...m, prefix: prefixes.get(m.address) ?? m.address }));
    return err({ kind: "ambiguous", to: wanted, candidates });
  }
  return refuseSelf(matches[0]!.address);
}

/** An ambiguous refusal with each candidate's prefix worked out among every running session
 * (`running`), not only the ones that matched: the prefix shown must reach its session alone. */
export function prefixedAmong(
  error: Extract<AddressError, { kind: "ambiguous" }>,
  running: readonly Addressee[],
): AddressError {
  const everyone = new Map<Address, Addressee>(running.map((r) => [r.address, r]));
  for (const c of error.candidates) if (!everyone.has(c.address)) everyone.set(c.address, c);
  const prefixes = uniquePrefixes([...everyone.values()]);
  return {
    ...error,
    candidates: error.candidates.map((c) => ({ ...c, prefix: prefixes.get(c.address) ?? c.address })),
  };
}

const hasName = (a: Addressee): a is Addressee & { name: string } => a.name !== undefined && a.name !== "";

/**
 * For each running session, the shortest prefix of its id, at least idPrefixCharsMin characters,
 * that resolves to it alone: no other id starts with it and no other session is named so.
 */
export function uniquePrefixes(running: readonly Addressee[]): Map<Address, string> {
  const names = new Map<string, number>();
  for (const r of running) if (hasName(r)) names.set(r.name, (names.get(r.name) ?? 0) + 1);
  const ownName = new Map(running.filter(hasName).map((r) => [r.address, r.name]));
  // A prefix another session is named after would reach that session by name: it grows past it.
  const namedByOthers = (prefix: string, address: Address) =>
    (names.get(prefix) ?? 0) > (ownName.get(address) === prefix ? 1 : 0);
  return sharedUniquePrefixes(
    running.map((r) => r.address),
    idPrefixCharsMin,
    namedByOthers,
  );
}

/** The shortest prefix of `address` (at least idPrefixCharsMin characters) that resolves to it
 * among `others`, the other running sessions. */
export function uniquePrefix(address: Address, others: readonly Addressee[]): string {
  const alone = others.filter((o) => o.address !== address);
  return uniquePrefixes([{ address, name: undefined }, ...alone]).get(address) ?? address;
}

/** What a person sees, and can type, for each running session: its name, or its unique prefix. */
export function displayNames(running: readonly Addressee[]): Map<Address, string> {
  const prefixes = uniquePrefixes(running);
  return new Map(running.map((r) => [r.address, hasName(r) ? r.name : (prefixes.get(r.address) ?? r.address)]));
}

/** What a label shows for a session: its name, or the short id when it has none. */
export function displayName(addressee: { address: string; name?: string | undefined }): string {
  return addressee.name !== undefined && addressee.name !== "" ? addressee.name : shortId(addressee.address);
}

export function describeAddressError(error: AddressError): string {
  switch (error.kind) {
    case "empty":
      return "No recipient given.";
    case "self":
      return "A session cannot send mail to itself.";
    case "ambiguous": {
      const listed = error.candidates.map((c) =>
        hasName(c)
          ? `${sanitizeField(c.name, labelFieldCharsMax)} (type ${c.prefix}, id ${c.address})`
          : `${c.prefix} (no name, id ${c.address})`,
      );
      return `"${sanitizeField(error.to, labelFieldCharsMax)}" matches ${error.candidates.length} running sessions: ${listed.join(", ")}. Type the name or prefix shown, or the full id; /name in a session gives it a name.`;
    }
    case "not-found": {
      const to = sanitizeField(error.to, labelFieldCharsMax);
      // Shorter than a prefix may be, it was never compared with an id: say the rule, not a finding.
      const unmatched =
        error.to.length < idPrefixCharsMin
          ? `is named "${to}", and an id prefix needs at least ${idPrefixCharsMin} characters`
          : `is named "${to}" or has an id starting with it`;
      return `No running session ${unmatched}. A closed session is reached by its full id.`;
    }
    default: {
      const never: never = error;
      return never;
    }
  }
}
