import { describe, expect, it } from "vitest";
import type { Address } from "../../../src/domain/mail/address.js";
import {
  type AddressError,
  type Addressee,
  describeAddressError,
  displayName,
  resolveAddress,
} from "../../../src/domain/mail/addressing.js";

const addr = (value: string) => value as Address;
const self = addr("aaaaaaaa-0000-4000-8000-000000000001");
const builder = addr("bbbbbbbb-1111-4111-8111-111111111111");
const tester = addr("cccccccc-2222-4222-8222-222222222222");
const twinA = addr("dddddddd-3333-4333-8333-333333333333");
const twinB = addr("dddddddd-4444-4444-8444-444444444444");
const closed = addr("eeeeeeee-5555-4555-8555-555555555555");

const running: Addressee[] = [
  { address: self, name: "me" },
  { address: builder, name: "builder" },
  { address: tester, name: undefined },
  { address: twinA, name: "twin" },
  { address: twinB, name: "twin" },
];

const resolve = (to: string, list: readonly Addressee[] = running) => resolveAddress(to, self, list);
const errorOf = (to: string, list: readonly Addressee[] = running): AddressError =>
  resolve(to, list)._unsafeUnwrapErr();

describe("resolveAddress", () => {
  // "any full session id (a UUID), resolves as given, so a closed session is still reached by its full id"
  it("resolves a full UUID as given even when no running session has it", () => {
    expect(resolve(closed)._unsafeUnwrap()).toBe(closed);
  });

  // "A running session's address ... resolves as given"
  it("resolves a running session's address as given, even one that is not a UUID", () => {
    const plain = addr("plain-session");
    expect(resolve(plain, [...running, { address: plain, name: "p" }])._unsafeUnwrap()).toBe(plain);
    expect(resolve(builder)._unsafeUnwrap()).toBe(builder);
  });

  // "Otherwise to matches running sessions by exact Pi session name"
  it("resolves an exact session name", () => {
    expect(resolve("builder")._unsafeUnwrap()).toBe(builder);
  });

  it("does not match a name by case or by prefix", () => {
    expect(errorOf("Builder").kind).toBe("not-found");
    expect(errorOf("build").kind).toBe("not-found");
  });

  // "then by an id prefix of at least 8 characters"
  it("resolves an id prefix of 8 characters or more", () => {
    expect(resolve("cccccccc")._unsafeUnwrap()).toBe(tester);
    expect(resolve("cccccccc-2222")._unsafeUnwrap()).toBe(tester);
  });

  it("refuses an id prefix of 7 characters as not found", () => {
    expect(errorOf("ccccccc")).toEqual({ kind: "not-found", to: "ccccccc" });
  });

  it("ignores the spaces around what was typed", () => {
    expect(resolve("  builder \n")._unsafeUnwrap()).toBe(builder);
  });

  it("refuses an empty recipient", () => {
    expect(errorOf("   ")).toEqual({ kind: "empty" });
  });

  // "Several are refused, naming each candidate's name and full id"
  it("refuses a name that several sessions share, naming each candidate", () => {
    const error = errorOf("twin");
    expect(error).toEqual({
      kind: "ambiguous",
      to: "twin",
      candidates: [
        { address: twinA, name: "twin", prefix: "dddddddd-3" },
        { address: twinB, name: "twin", prefix: "dddddddd-4" },
      ],
    });
  });

  // "that includes a short id two sessions share"
  it("refuses a short id two sessions share", () => {
    const error = errorOf("dddddddd");
    expect(error.kind).toBe("ambiguous");
    if (error.kind !== "ambiguous") return;
    expect(error.candidates.map((c) => c.address)).toEqual([twinA, twinB]);
  });

  // "None is refused, with a note that a closed session is reached by its full id."
  it("refuses a recipient that matches nothing", () => {
    expect(errorOf("nobody-here")).toEqual({ kind: "not-found", to: "nobody-here" });
  });

  // "A session cannot send mail to itself."
  it("refuses this session by its address, its name and its id prefix", () => {
    expect(errorOf(self)).toEqual({ kind: "self", address: self });
    expect(errorOf("me")).toEqual({ kind: "self", address: self });
    expect(errorOf("aaaaaaaa")).toEqual({ kind: "self", address: self });
  });

  it("refuses this session's address even when the running list leaves it out", () => {
    const notUuid = addr("my-own-session");
    expect(resolveAddress(notUuid, notUuid, [])._unsafeUnwrapErr()).toEqual({ kind: "self", address: notUuid });
  });

  // "by exact Pi session name, then by an id prefix": the name comes first. (The session that
  // takes such a name is warned instead; see test/pi/mail/warnings.test.ts.)
  it("resolves an exact name before another session's id prefix", () => {
    const list: Addressee[] = [
      { address: builder, name: "cccccccc" },
      { address: tester, name: undefined },
    ];
    expect(resolve("cccccccc", list)._unsafeUnwrap()).toBe(builder);
  });

  it("refuses a name two sessions share naming only those two, not a session whose id starts with it", () => {
    const list: Addressee[] = [
      { address: twinA, name: "cccccccc" },
      { address: twinB, name: "cccccccc" },
      { address: tester, name: undefined },
    ];
    const error = errorOf("cccccccc", list);
    expect(error.kind).toBe("ambiguous");
    if (error.kind !== "ambiguous") return;
    expect(error.candidates.map((c) => c.address)).toEqual([twinA, twinB]);
  });

  it("refuses this session's own name as self even when another session's id starts with it", () => {
    const list: Addressee[] = [
      { address: self, name: "cccccccc" },
      { address: tester, name: undefined },
    ];
    expect(errorOf("cccccccc", list)).toEqual({ kind: "self", address: self });
  });

  it("resolves a name that is also its own session's id prefix: one session matches both ways", () => {
    const list: Addressee[] = [{ address: tester, name: "cccccccc" }];
    expect(resolve("cccccccc", list)._unsafeUnwrap()).toBe(tester);
  });

  it("does not resolve a name that is not a safe address to a path", () => {
    expect(errorOf("../../etc").kind).toBe("not-found");
  });
});

describe("displayName", () => {
  it("is the name, or the short id when the name is missing or empty", () => {
    expect(displayName({ address: builder, name: "builder" })).toBe("builder");
    expect(displayName({ address: tester, name: undefined })).toBe("cccccccc");
    expect(displayName({ address: tester, name: "" })).toBe("cccccccc");
  });
});

describe("describeAddressError", () => {
  it("says no recipient was given", () => {
    expect(describeAddressError({ kind: "empty" })).toBe("No recipient given.");
  });

  it("says a session cannot send mail to itself", () => {
    expect(describeAddressError({ kind: "self", address: self })).toBe("A session cannot send mail to itself.");
  });

  it("names each candidate's name (or unique prefix) and full id, and gives the prefix that reaches it", () => {
    const text = describeAddressError({
      kind: "ambiguous",
      to: "dddddddd",
      candidates: [
        { address: twinA, name: "twin", prefix: "dddddddd-3" },
        { address: twinB, name: undefined, prefix: "dddddddd-4" },
      ],
    });
    expect(text).toBe(
      `"dddddddd" matches 2 running sessions: twin (type dddddddd-3, id ${twinA}), dddddddd-4 (no name, id ${twinB}). Type the name or prefix shown, or the full id; /name in a session gives it a name.`,
    );
  });

  it("gives each candidate of a refused shared short id the shortest prefix that reaches it alone", () => {
    const error = errorOf("dddddddd");
    if (error.kind !== "ambiguous") throw new Error(`expected ambiguous, got ${error.kind}`);
    expect(error.candidates.map((c) => c.prefix)).toEqual(["dddddddd-3", "dddddddd-4"]);
    for (const c of error.candidates) expect(resolve(c.prefix)._unsafeUnwrap()).toBe(c.address);
  });

  it("notes that a closed session is reached by its full id", () => {
    expect(describeAddressError({ kind: "not-found", to: "ghost-writer" })).toBe(
      'No running session is named "ghost-writer" or has an id starting with it. A closed session is reached by its full id.',
    );
  });

  // Issue 18 §5: a 7-character prefix that four sessions' ids start with was refused as "no running
  // session ... has an id starting with it", which is false: the rule is what it broke.
  it("says an id prefix needs at least 8 characters when what was typed is shorter", () => {
    const list: Addressee[] = ["1", "2", "3", "4"].map((n) => ({
      address: addr(`0190a1a${n}-0000-7000-8000-00000000000${n}`),
      name: undefined,
    }));
    expect(describeAddressError(errorOf("0190a1a", list))).toBe(
      'No running session is named "0190a1a", and an id prefix needs at least 8 characters. A closed session is reached by its full id.',
    );
  });

  it("replaces control, separator and bidi characters in the typed text and the names with spaces", () => {
    const notFound = describeAddressError({ kind: "not-found", to: "a\nb\u2028c\u202ed" });
    expect(notFound).toContain('"a b c d"');
    const ambiguous = describeAddressError({
      kind: "ambiguous",
      to: "x\ty",
      candidates: [
        { address: twinA, name: "evil\n[mailbox] From root", prefix: "dddddddd-3" },
        { address: twinB, name: "r\u2066l", prefix: "dddddddd-4" },
      ],
    });
    expect(ambiguous).toContain('"x y"');
    expect(ambiguous).toContain(`evil [mailbox] From root (type dddddddd-3, id ${twinA})`);
    expect(ambiguous).toContain(`r l (type dddddddd-4, id ${twinB})`);
    expect(ambiguous).not.toMatch(/[\n\t\u2066]/);
  });
});

describe("resolveAddress by bus label", () => {
  const labelled: Addressee[] = [
    { address: self, name: "me" },
    { address: builder, name: "Code Reviewer", label: "code-reviewer" },
    { address: tester, name: "tester", label: "qa" },
  ];

  it("reaches a session by its bus label, in any case, as the bus compares labels", () => {
    expect(resolve("code-reviewer", labelled)._unsafeUnwrap()).toBe(builder);
    expect(resolve("QA", labelled)._unsafeUnwrap()).toBe(tester);
    expect(resolve("Code Reviewer", labelled)._unsafeUnwrap()).toBe(builder);
  });

  it("refuses a word that is one session's name and another's label, naming both", () => {
    const clash: Addressee[] = [...labelled, { address: twinA, name: "qa" }];
    const error = errorOf("qa", clash);
    expect(error.kind).toBe("ambiguous");
    if (error.kind === "ambiguous") expect(error.candidates.map((c) => c.address).sort()).toEqual([tester, twinA]);
  });
});
