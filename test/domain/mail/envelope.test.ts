import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Address } from "../../../src/domain/mail/address.js";
import {
  decodeEnvelope,
  type Envelope,
  encodeEnvelope,
  envelopeFileName,
  normalizeEnvelope,
} from "../../../src/domain/mail/envelope.js";
import { idCharsMax } from "../../../src/domain/mail/limits.js";

const alice = "11111111-1111-4111-8111-111111111111" as Address;
const bob = "22222222-2222-4222-8222-222222222222" as Address;

const full: Envelope = {
  id: "m-1",
  from: alice,
  to: bob,
  kind: "reply",
  hops: 2,
  in_reply_to: ["r-1", "r-2"],
  status: "stopped",
  ts: "2024-05-01T10:00:00.000Z",
  body: "Partial answer.",
};

/** An envelope file's text: the minimal fields plus any given (undefined removes a field). */
const stored = (fields: Record<string, unknown>): string =>
  JSON.stringify({ id: "m-1", from: alice, to: bob, body: "hi", ...fields });
const decoded = (fields: Record<string, unknown>) => decodeEnvelope(stored(fields))._unsafeUnwrap();
const decodeError = (fields: Record<string, unknown>) => decodeEnvelope(stored(fields))._unsafeUnwrapErr();
const ids = (n: number) => Array.from({ length: n }, (_, i) => `r-${i}`);

describe("decodeEnvelope", () => {
  // "id, from, to, kind, hops, in_reply_to, status, ts and body"
  it("reads all nine fields", () => {
    expect(decodeEnvelope(JSON.stringify(full))._unsafeUnwrap()).toEqual(full);
  });

  it("tolerates extra fields and does not keep them", () => {
    const envelope = decodeEnvelope(JSON.stringify({ ...full, priority: "high", meta: { a: 1 } }))._unsafeUnwrap();
    expect(envelope).toEqual(full);
    expect(Object.keys(envelope).sort()).toEqual(
      ["body", "from", "hops", "id", "in_reply_to", "kind", "status", "to", "ts"].sort(),
    );
  });

  it("reads each known kind as itself", () => {
    for (const kind of ["request", "ask", "message"] as const) {
      expect(decoded({ kind, hops: 1 }).kind).toBe(kind);
    }
    expect(decoded({ kind: "reply", in_reply_to: ["r-1"], status: "done" }).kind).toBe("reply");
  });

  // "A kind this version does not know is read as message ... The original value is not kept."
  it("reads an unknown kind as message and does not keep the original value", () => {
    const envelope = decoded({ kind: "telegram", hops: 1 });
    expect(envelope.kind).toBe("message");
    expect(JSON.stringify(envelope)).not.toContain("telegram");
  });

  // "An envelope written before kind and hops existed is read as a reply when in_reply_to is non-empty
  // and as a request otherwise, with hops 0."
  it("reads an envelope without kind and hops as a reply with hops 0 when in_reply_to is non-empty", () => {
    const envelope = decoded({ in_reply_to: ["r-1"], status: "done" });
    expect(envelope.kind).toBe("reply");
    expect(envelope.hops).toBe(0);
    expect(envelope.status).toBe("done");
  });

  it("reads an envelope without kind and hops as a request with hops 0 when in_reply_to is empty or missing", () => {
    expect(decoded({ in_reply_to: [] })).toMatchObject({ kind: "request", hops: 0, in_reply_to: [] });
    expect(decoded({})).toMatchObject({ kind: "request", hops: 0, in_reply_to: [], status: "", ts: "" });
  });

  it("reads a missing hops as 0 when kind is present", () => {
    expect(decoded({ kind: "message" }).hops).toBe(0);
  });

  it("reads a numeric ts as its decimal text", () => {
    expect(decoded({ ts: 1_714_557_600_000 }).ts).toBe("1714557600000");
  });

  // "An envelope whose in_reply_to names more than 50 requests (50 is allowed) is set aside"
  it("accepts 50 requests in in_reply_to", () => {
    expect(decoded({ kind: "reply", in_reply_to: ids(50), status: "done" }).in_reply_to).toHaveLength(50);
  });

  it("refuses 51 requests in in_reply_to as too-many-requests", () => {
    expect(decodeError({ kind: "reply", in_reply_to: ids(51), status: "done" })).toEqual({
      kind: "too-many-requests",
      count: 51,
      max: 50,
    });
  });

  // "Requests, asks and messages carry no status."
  it("drops a status on a request, an ask and a message", () => {
    for (const kind of ["request", "ask", "message"]) {
      expect(decoded({ kind, hops: 0, status: "done" }).status).toBe("");
    }
  });

  it("reads a reply without status, or with an empty one, as done", () => {
    expect(decoded({ kind: "reply", hops: 1, in_reply_to: ["r-1"] }).status).toBe("done");
    expect(decoded({ kind: "reply", hops: 1, in_reply_to: ["r-1"], status: "" }).status).toBe("done");
  });

  it("keeps each known reply status", () => {
    for (const status of ["done", "stopped", "failed"]) {
      expect(decoded({ kind: "reply", in_reply_to: ["r-1"], status }).status).toBe(status);
    }
  });

  it("reads an unknown reply status as failed, since it cannot claim to be an answer", () => {
    expect(decoded({ kind: "reply", in_reply_to: ["r-1"], status: "succeeded" }).status).toBe("failed");
  });

  it("refuses a from or to that is not a safe address", () => {
    expect(decodeError({ from: "a/b" })).toEqual({ kind: "bad-address", field: "from", value: "a/b" });
    expect(decodeError({ to: ".." })).toEqual({ kind: "bad-address", field: "to", value: ".." });
    expect(decodeError({ to: "../x" })).toEqual({ kind: "bad-address", field: "to", value: "../x" });
    expect(decodeError({ from: ".hidden" })).toEqual({ kind: "bad-address", field: "from", value: ".hidden" });
  });

  // "Envelope ids are data": the spec sets aside only what cannot be read.
  it("reads an id of any characters as data, and writes only ids safe in a file name", () => {
    for (const id of ["a/b", "../x", ".hidden", "id with spaces", "line\nbreak", "ü-😀", "x".repeat(idCharsMax)]) {
      expect(decodeEnvelope(stored({ id }))._unsafeUnwrap().id).toBe(id);
      expect(decodeEnvelope(stored({ in_reply_to: [id] }))._unsafeUnwrap().in_reply_to).toEqual([id]);
    }
    expect(() => encodeEnvelope({ ...full, id: "a/b" })).toThrow();
  });

  it("refuses text that is not JSON", () => {
    expect(
      decodeEnvelope("{not json")
        .mapErr((e) => e.kind)
        ._unsafeUnwrapErr(),
    ).toBe("not-json");
    expect(
      decodeEnvelope("")
        .mapErr((e) => e.kind)
        ._unsafeUnwrapErr(),
    ).toBe("not-json");
  });

  it("refuses JSON of the wrong shape", () => {
    const shapes = [
      "null",
      "[]",
      '"text"',
      JSON.stringify({ id: "m-1", from: alice, to: bob }),
      stored({ hops: -1 }),
      stored({ hops: 1.5 }),
      stored({ hops: "1" }),
      stored({ id: "" }),
      stored({ id: "x".repeat(idCharsMax + 1) }),
      stored({ in_reply_to: "r-1" }),
      stored({ in_reply_to: [""] }),
      stored({ kind: 3 }),
      stored({ body: 3 }),
    ];
    for (const text of shapes) {
      expect(
        decodeEnvelope(text)
          .mapErr((e) => e.kind)
          ._unsafeUnwrapErr(),
        text,
      ).toBe("bad-shape");
    }
  });

  it("checks an already parsed object the same way (normalizeEnvelope)", () => {
    expect(normalizeEnvelope(full)._unsafeUnwrap()).toEqual(full);
    expect(normalizeEnvelope(undefined).isErr()).toBe(true);
  });
});

describe("encodeEnvelope", () => {
  it("writes an envelope that reads back as itself", () => {
    const request: Envelope = { ...full, kind: "request", in_reply_to: [], status: "", hops: 0 };
    expect(decodeEnvelope(encodeEnvelope(full))._unsafeUnwrap()).toEqual(full);
    expect(decodeEnvelope(encodeEnvelope(request))._unsafeUnwrap()).toEqual(request);
  });

  it("writes every valid envelope so that it reads back as itself (property)", () => {
    const address = fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_-]{0,40}$/);
    const envelope = fc
      .record({
        id: address,
        from: address,
        to: address,
        kind: fc.constantFrom("request", "ask", "message", "reply"),
        hops: fc.nat({ max: 1_000 }),
        in_reply_to: fc.array(fc.string({ minLength: 1 }), { maxLength: 50 }),
        status: fc.constantFrom("done", "stopped", "failed"),
        ts: fc.string(),
        body: fc.string({ unit: "binary" }),
      })
      .map(
        (e): Envelope => ({
          ...e,
          from: e.from as Address,
          to: e.to as Address,
          status: e.kind === "reply" ? e.status : "",
        }),
      );
    fc.assert(
      fc.property(envelope, (e) => {
        expect(decodeEnvelope(encodeEnvelope(e))._unsafeUnwrap()).toEqual(e);
      }),
    );
  });

  it("throws on an invalid envelope instead of writing it", () => {
    const bad: Envelope[] = [
      { ...full, hops: -1 },
      { ...full, hops: 0.5 },
      { ...full, id: "" },
      { ...full, id: "../x" },
      { ...full, in_reply_to: ids(51) },
      { ...full, kind: "telegram" as Envelope["kind"] },
      { ...full, status: "succeeded" as Envelope["status"] },
    ];
    for (const envelope of bad) {
      expect(() => encodeEnvelope(envelope), JSON.stringify(envelope).slice(0, 80)).toThrow(/invalid envelope/);
    }
  });

  it("throws on a from or to that could not be read back as an address", () => {
    expect(() => encodeEnvelope({ ...full, to: "../elsewhere" as Address })).toThrow();
    expect(() => encodeEnvelope({ ...full, from: "a/b" as Address })).toThrow();
    expect(() => encodeEnvelope({ ...full, to: ".hidden" as Address })).toThrow();
  });

  // "A reply's status says how the run ended ... Requests, asks and messages carry no status."
  it("throws on a status on a request, an ask or a message", () => {
    for (const kind of ["request", "ask", "message"] as const) {
      expect(() => encodeEnvelope({ ...full, kind, in_reply_to: [], status: "done" })).toThrow(/status/);
    }
  });

  it("throws on a reply without a status", () => {
    expect(() => encodeEnvelope({ ...full, status: "" })).toThrow(/status/);
  });
});

describe("envelopeFileName", () => {
  it("zero-pads the send time to 15 digits before the id", () => {
    expect(envelopeFileName(1_714_557_600_000, "m-1")).toBe("001714557600000-m-1.json");
    expect(envelopeFileName(0, "x")).toBe("000000000000000-x.json");
  });

  it("drops a fraction of a millisecond and clamps a negative time to 0", () => {
    expect(envelopeFileName(12.9, "x")).toBe("000000000000012-x.json");
    expect(envelopeFileName(-5, "x")).toBe("000000000000000-x.json");
  });

  it("sorts by send time whatever the ids (property)", () => {
    const time = fc.integer({ min: 0, max: 999_999_999_999_999 });
    const id = fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,20}$/);
    fc.assert(
      fc.property(time, time, id, id, (a, b, idA, idB) => {
        fc.pre(a !== b);
        const [early, late] = a < b ? [a, b] : [b, a];
        expect(envelopeFileName(early, idA) < envelopeFileName(late, idB)).toBe(true);
      }),
    );
  });
});
