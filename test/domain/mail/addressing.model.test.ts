// resolveAddress against a reference written straight from the spec's "Addressing" rules, over
// generated sets of running sessions: shared 8-character id prefixes, duplicate and missing names,
// names that look like id prefixes, and a self that is running or not.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Address } from "../../../src/domain/mail/address.js";
import { type AddressError, type Addressee, resolveAddress } from "../../../src/domain/mail/addressing.js";

type Outcome =
  | { kind: "ok"; address: string }
  | { kind: "empty" | "self" | "not-found" }
  | { kind: "ambiguous"; candidates: string[] };

const uuidText = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The spec, rule by rule. Where it is silent: what is typed is trimmed, and typing one's own
 * address is refused as self even when that address is neither running nor a UUID. */
function reference(typed: string, self: string, running: readonly Addressee[]): Outcome {
  const to = typed.trim();
  if (to === "") return { kind: "empty" };
  // 4. A session cannot send mail to itself.
  if (to === self) return { kind: "self" };
  // 1. A running session's address, or any full session id, resolves as given.
  if (running.some((r) => r.address === to) || uuidText.test(to)) return { kind: "ok", address: to };
  // 2. Exact session name, then an id prefix of at least 8 characters: the prefix only when no
  // session has the name.
  const byName = running.filter((r) => r.name === to);
  const matches = byName.length > 0 ? byName : running.filter((r) => to.length >= 8 && r.address.startsWith(to));
  // 3. One match resolves; several are refused naming each; none is refused.
  if (matches.length > 1) return { kind: "ambiguous", candidates: matches.map((m) => m.address).sort() };
  const only = matches[0];
  if (only === undefined) return { kind: "not-found" };
  return only.address === self ? { kind: "self" } : { kind: "ok", address: only.address };
}

function outcomeOf(to: string, self: Address, running: readonly Addressee[]): Outcome {
  const resolved = resolveAddress(to, self, running);
  if (resolved.isOk()) return { kind: "ok", address: resolved.value };
  const error: AddressError = resolved.error;
  switch (error.kind) {
    case "ambiguous":
      return { kind: "ambiguous", candidates: error.candidates.map((c) => c.address).sort() };
    case "empty":
    case "self":
    case "not-found":
      return { kind: error.kind };
    default: {
      const never: never = error;
      return never;
    }
  }
}

// Sessions whose ids share 8 characters (or 13) with others, so short ids collide.
const sharedPrefixes = ["abcdef01", "0123abcd-4567"];
const addressArb = fc.oneof(
  fc.uuid(),
  fc.tuple(fc.constantFrom(...sharedPrefixes), fc.uuid()).map(([prefix, id]) => prefix + id.slice(prefix.length)),
  fc.constantFrom("plain-session", "plain-session-2"),
) as fc.Arbitrary<Address>;
// Duplicates happen, a name can be missing or empty, and one name looks like an id prefix.
const nameArb = fc.option(fc.constantFrom("builder", "tester", "twin", "Twin", "abcdef01", "plain-session", ""), {
  nil: undefined,
});
const runningArb = fc.uniqueArray(fc.record({ address: addressArb, name: nameArb }), {
  selector: (r) => r.address,
  maxLength: 7,
});

const worldArb = runningArb.chain((running) => {
  const addresses = running.map((r) => r.address);
  const names = running.flatMap((r) => (r.name === undefined ? [] : [r.name]));
  const fromList = <T>(items: readonly T[], fallback: fc.Arbitrary<T>) =>
    items.length > 0 ? fc.constantFrom(...items) : fallback;
  const selfArb = fc.oneof(fromList(addresses, addressArb), addressArb, fc.constant("plain-self" as Address));
  const prefixArb = fc
    .tuple(fromList(addresses, addressArb), fc.integer({ min: 6, max: 36 }))
    .map(([address, length]) => address.slice(0, length));
  return selfArb.chain((self) => {
    const toArb = fc.oneof(
      fromList(addresses, fc.uuid()),
      fc.uuid(),
      fromList(
        names,
        nameArb.map((n) => n ?? ""),
      ),
      prefixArb,
      fc.constant(self as string),
      fc.constantFrom(...sharedPrefixes, "abcdef0", "plain-self", "nobody", "  ", ""),
      fc.tuple(fromList(names, fc.constant("twin")), fc.constantFrom(" ", "\t", "\n")).map(([n, pad]) => pad + n + pad),
      fromList(addresses, fc.uuid()).map((a) => a.toUpperCase()),
      fc.string({ maxLength: 12 }),
    );
    return toArb.map((to) => ({ running, self, to }));
  });
});

describe("resolveAddress against the spec's rules", () => {
  it("gives the reference's address or error (with the same ambiguous candidates) for every to", () => {
    const seen = new Map<Outcome["kind"], number>();
    fc.assert(
      fc.property(worldArb, ({ running, self, to }) => {
        const expected = reference(to, self, running);
        seen.set(expected.kind, (seen.get(expected.kind) ?? 0) + 1);
        expect(outcomeOf(to, self, running)).toEqual(expected);
      }),
      { numRuns: 3_000 },
    );
    // Every rule was reached, so a pass is not the generator missing them.
    for (const kind of ["ok", "empty", "self", "not-found", "ambiguous"] as const) {
      expect(seen.get(kind) ?? 0, `${kind} outcomes generated`).toBeGreaterThan(30);
    }
  });
});
