// Issue 9 §3: Pi's ids are UUIDv7, so sessions started within a minute share their first 8
// characters. What a person sees and types for an unnamed session is the shortest prefix of at
// least 8 characters that tells it apart, and typed back it resolves to that session.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Address } from "../../../src/domain/mail/address.js";
import {
  type Addressee,
  describeAddressError,
  displayNames,
  resolveAddress,
  uniquePrefix,
} from "../../../src/domain/mail/addressing.js";

const addr = (value: string) => value as Address;
// Three UUIDv7 ids from the same minute: the first 8 characters are the same.
const first = addr("0190a1a1-7f64-7000-8000-000000000001");
const second = addr("0190a1a1-809c-7000-8000-000000000002");
const third = addr("0190a1a1-809d-7000-8000-000000000003");
const elsewhere = addr("0190ffff-0000-7000-8000-000000000004");

describe("uniquePrefix", () => {
  it("is the first 8 characters when no other running session shares them", () => {
    expect(uniquePrefix(elsewhere, [{ address: first, name: undefined }])).toBe("0190ffff");
    expect(uniquePrefix(first, [])).toBe("0190a1a1");
  });

  it("grows until no other running session's id starts with it", () => {
    const others: Addressee[] = [
      { address: second, name: undefined },
      { address: third, name: undefined },
    ];
    expect(uniquePrefix(first, others)).toBe("0190a1a1-7");
    expect(
      uniquePrefix(second, [
        { address: first, name: undefined },
        { address: third, name: undefined },
      ]),
    ).toBe("0190a1a1-809c");
  });

  it("grows past a prefix another session is named after, which would be ambiguous typed", () => {
    expect(uniquePrefix(first, [{ address: elsewhere, name: "0190a1a1" }])).toBe("0190a1a1-");
  });

  it("is the whole address when another address starts with all of it", () => {
    const plain = addr("plain-session");
    expect(uniquePrefix(plain, [{ address: addr("plain-session-2"), name: undefined }])).toBe("plain-session");
    expect(uniquePrefix(addr("short"), [])).toBe("short");
  });
});

describe("displayNames", () => {
  it("shows a named session by its name and an unnamed one by its unique prefix", () => {
    const names = displayNames([
      { address: first, name: "planner" },
      { address: second, name: undefined },
      { address: third, name: "" },
    ]);
    expect(names.get(first)).toBe("planner");
    expect(names.get(second)).toBe("0190a1a1-809c");
    expect(names.get(third)).toBe("0190a1a1-809d");
  });
});

describe("the ambiguity refusal", () => {
  it("names each candidate by name or unique prefix, gives the prefix that reaches it, and suggests /name", () => {
    const running: Addressee[] = [
      { address: first, name: undefined },
      { address: second, name: "twin" },
      { address: elsewhere, name: "me" },
    ];
    const refused = resolveAddress("0190a1a1", elsewhere, running);
    const text = describeAddressError(refused._unsafeUnwrapErr());
    expect(text).toBe(
      `"0190a1a1" matches 2 running sessions: 0190a1a1-7 (no name, id ${first}), twin (type 0190a1a1-8, id ${second}). Type the name or prefix shown, or the full id; /name in a session gives it a name.`,
    );
  });
});

// UUIDv7-like ids: a few shared time prefixes, so prefixes collide at 8 characters and beyond.
const hex = fc.constantFrom(..."0123456789abcdef".split(""));
const idArb = fc
  .tuple(
    fc.constantFrom("0190a1a1-7f6", "0190a1a1-80", "0190a1a1-809c-7", "0190b2b2-0"),
    fc.array(hex, { minLength: 24, maxLength: 24 }),
  )
  .map(([head, tail]) => {
    const raw = (head.replaceAll("-", "") + tail.join("")).slice(0, 32);
    return addr(
      `${raw.slice(0, 8)}-${raw.slice(8, 12)}-${raw.slice(12, 16)}-${raw.slice(16, 20)}-${raw.slice(20, 32)}`,
    );
  });
const worldArb = fc.uniqueArray(idArb, { minLength: 2, maxLength: 8 }).chain((addresses) =>
  fc
    .array(
      fc.option(
        fc.oneof(
          fc.constantFrom("twin", "me"),
          fc.constantFrom(...addresses).chain((a) => fc.integer({ min: 8, max: 14 }).map((n) => a.slice(0, n))),
        ),
        { nil: undefined },
      ),
      {
        minLength: addresses.length,
        maxLength: addresses.length,
      },
    )
    .map((names) => addresses.map((address, i): Addressee => ({ address, name: names[i] }))),
);

describe("uniquePrefix, for any set of running sessions", () => {
  it("is a prefix of the address, at least 8 characters, shared by no other, the shortest such, and resolves back to it", () => {
    fc.assert(
      fc.property(worldArb, (running) => {
        for (const target of running) {
          const others = running.filter((r) => r !== target);
          const prefix = uniquePrefix(target.address, others);
          expect(target.address.startsWith(prefix)).toBe(true);
          expect(prefix.length).toBeGreaterThanOrEqual(8);
          expect(others.some((o) => o.address.startsWith(prefix))).toBe(false);
          for (const self of others) {
            expect(resolveAddress(prefix, self.address, running)._unsafeUnwrap()).toBe(target.address);
          }
          // Shortest: one character less is shared, is another session's name, or is under 8.
          const shorter = prefix.slice(0, -1);
          const sharedOrNamed =
            others.some((o) => o.address.startsWith(shorter) || o.name === shorter) || shorter.length < 8;
          expect(sharedOrNamed).toBe(true);
          expect(displayNames(running).get(target.address)).toBe(
            target.name !== undefined && target.name !== "" ? target.name : prefix,
          );
        }
      }),
      { numRuns: 1_000 },
    );
  });
});
