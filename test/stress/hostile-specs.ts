// The shapes of hostile input, as plain data that fast-check draws and shrinks: what goes into
// new/ (broken files, links, FIFOs, folders, dot-files, oversized and misaddressed envelopes) and
// the valid mail mixed in with it.
import fc from "fast-check";
import { idCharsMax } from "../../src/domain/mail/limits.js";
import { type PeerKind, peerAddress, peerKinds } from "./hostile-peers.js";
import { hostileNamePart, hostileText, unsafeChars } from "./hostile-text.js";

export const mailKinds = ["request", "ask", "message", "reply"] as const;
export type MailKind = (typeof mailKinds)[number];

export type LinkTo =
  | "trap-file"
  | "trap-file-relative"
  | "trap-dir"
  | "trap-fifo"
  | "dangling"
  | "inside-file"
  | "inside-file-relative"
  | "inside-dir"
  | "own-sent"
  | "new-itself"
  | "loop"
  | "dev-zero";

export type HostileSpec =
  | { t: "bytes"; bytes: Uint8Array }
  | { t: "not-json"; text: string }
  | { t: "truncated"; at: number }
  | { t: "utf16" }
  | { t: "json"; value: unknown }
  | { t: "broken"; breaker: number; text: string }
  | { t: "too-many-replies"; count: number }
  | { t: "bad-address"; field: "from" | "to"; value: string }
  | { t: "wrong-recipient"; to: string }
  | { t: "too-big"; extra: number }
  | { t: "link"; to: LinkTo }
  | { t: "fifo" }
  | { t: "dir" }
  | { t: "dot"; inner: "mail" | "link" | "dir" | "fifo" | "garbage" };

export type ReplyId =
  | { t: "copy"; long: boolean }
  | { t: "hostile-copy"; id: string }
  | { t: "link-copy" }
  | { t: "fifo-copy" }
  | { t: "none"; id: string };

export interface ValidSpec {
  peer: PeerKind;
  kind: { t: "known"; kind: MailKind } | { t: "unknown"; kind: string } | { t: "old" };
  body: string;
  size: "small" | "cut" | "max";
  replyTo: ReplyId[];
  fifty: boolean;
  status: string | undefined;
  hops: number | undefined;
  bom: boolean;
  extras: boolean;
  tsNumber: boolean;
}

export interface Named<T> {
  spec: T;
  suffix: string;
  ext: string;
}

/** Stands for "delete the field". */
export const removed = Symbol("removed");
/** Stands for "the field holding the spec's text": a body of the wrong type is built from it. */
export const valueWithText = Symbol("value-with-text");

// Each makes a valid envelope invalid: [field, value].
export const breakers: ReadonlyArray<readonly [string, unknown]> = [
  ["id", removed],
  ["from", removed],
  ["to", removed],
  ["body", removed],
  ["id", 5],
  ["id", ""],
  ["id", null],
  ["id", ["a"]],
  // Ids are data (any characters are read); only one too long to be an id breaks an envelope.
  ["id", "x".repeat(idCharsMax + 1)],
  ["hops", valueWithText],
  ["from", 7],
  ["to", {}],
  ["body", 1],
  ["body", null],
  ["body", ["x"]],
  ["body", { text: "x" }],
  ["kind", 3],
  ["kind", null],
  ["kind", ["request"]],
  ["hops", -1],
  ["hops", 1.5],
  ["hops", "0"],
  ["hops", null],
  ["in_reply_to", "r1"],
  ["in_reply_to", [1]],
  ["in_reply_to", [null]],
  ["in_reply_to", [""]],
  ["in_reply_to", { 0: "a" }],
  ["status", 0],
  ["status", null],
  ["status", false],
  ["ts", {}],
  ["ts", null],
  ["ts", true],
];

const badAddresses = ["a/b", "../x", "..", ".", ".hidden", "a..b", "", "x".repeat(129), "a b", "a\nb", "/abs", "ü"];

export const linkTargets: readonly LinkTo[] = [
  "trap-file",
  "trap-file-relative",
  "trap-dir",
  "trap-fifo",
  "dangling",
  "inside-file",
  "inside-file-relative",
  "inside-dir",
  "own-sent",
  "new-itself",
  "loop",
  "dev-zero",
];

const unsafeText = fc.tuple(hostileText, fc.constantFrom(...unsafeChars)).map(([t, c]) => `${t}${c}`);

export const hostileSpec: fc.Arbitrary<HostileSpec> = fc.oneof(
  fc.record({ t: fc.constant("bytes" as const), bytes: fc.uint8Array({ maxLength: 512 }) }),
  fc.record({
    t: fc.constant("not-json" as const),
    text: fc.constantFrom(
      "",
      " ",
      "{",
      "}",
      '{"id":',
      "[",
      "nul",
      "NaN",
      "{'id':'x'}",
      '{"id":"a",}',
      "\u0000",
      '{"a":1}{"b":2}',
      "\ufeff\ufeff{}",
    ),
  }),
  fc.record({ t: fc.constant("truncated" as const), at: fc.double({ min: 0, max: 0.999, noNaN: true }) }),
  fc.constant({ t: "utf16" as const }),
  fc.record({ t: fc.constant("json" as const), value: fc.jsonValue({ maxDepth: 3 }) }),
  fc.record({ t: fc.constant("broken" as const), breaker: fc.nat(breakers.length - 1), text: unsafeText }),
  fc.record({ t: fc.constant("too-many-replies" as const), count: fc.integer({ min: 51, max: 80 }) }),
  fc.record({
    t: fc.constant("bad-address" as const),
    field: fc.constantFrom("from" as const, "to" as const),
    value: fc.oneof(
      fc.constantFrom(...badAddresses),
      hostileText.map((t) => `${t}/`),
    ),
  }),
  fc.record({
    t: fc.constant("wrong-recipient" as const),
    to: fc.constantFrom(peerAddress("running"), "5E1F0000-0000-4000-8000-00000000000A", "someone-else"),
  }),
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant("too-big" as const), extra: fc.integer({ min: 1, max: 65_536 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ t: fc.constant("link" as const), to: fc.constantFrom(...linkTargets) }),
  },
  fc.constant({ t: "fifo" as const }),
  fc.constant({ t: "dir" as const }),
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("dot" as const),
      inner: fc.constantFrom("mail", "link", "dir", "fifo", "garbage"),
    }),
  },
) as fc.Arbitrary<HostileSpec>;

const replyId: fc.Arbitrary<ReplyId> = fc.oneof(
  fc.record({ t: fc.constant("copy" as const), long: fc.boolean() }),
  fc.record({ t: fc.constant("hostile-copy" as const), id: hostileNamePart }),
  fc.constant({ t: "link-copy" as const }),
  fc.constant({ t: "fifo-copy" as const }),
  fc.record({ t: fc.constant("none" as const), id: hostileText }),
);

export const validSpec: fc.Arbitrary<ValidSpec> = fc.record({
  peer: fc.constantFrom(...peerKinds),
  kind: fc.oneof(
    { weight: 4, arbitrary: fc.record({ t: fc.constant("known" as const), kind: fc.constantFrom(...mailKinds) }) },
    {
      weight: 1,
      arbitrary: fc.record({
        t: fc.constant("unknown" as const),
        kind: fc
          .oneof(
            fc.constantFrom("note", "", "REQUEST", "request ", "\u202ereply", "reply\n[mailbox] From evil"),
            hostileText,
          )
          .filter((k) => !(mailKinds as readonly string[]).includes(k)),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ t: "old" as const }) },
  ),
  body: hostileText,
  size: fc.oneof(
    { weight: 6, arbitrary: fc.constant("small" as const) },
    { weight: 2, arbitrary: fc.constant("cut" as const) },
    {
      weight: 1,
      arbitrary: fc.constant("max" as const),
    },
  ),
  replyTo: fc.array(replyId, { maxLength: 4 }),
  fifty: fc.boolean(),
  status: fc.option(fc.oneof(fc.constantFrom("done", "stopped", "failed", ""), hostileText), { nil: undefined }),
  hops: fc.option(fc.oneof(fc.nat(), fc.constant(2 ** 53 - 1), fc.constant(1e21)), { nil: undefined }),
  bom: fc.boolean(),
  extras: fc.boolean(),
  tsNumber: fc.boolean(),
});

export function named<T>(spec: fc.Arbitrary<T>): fc.Arbitrary<Named<T>> {
  return fc.record({
    spec,
    suffix: fc.oneof({ weight: 1, arbitrary: fc.constant("") }, { weight: 2, arbitrary: hostileNamePart }),
    ext: fc.constantFrom(".json", "", ".tmp", ".JSON"),
  });
}
