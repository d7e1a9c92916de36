import { describe, expect, it } from "vitest";
import type { SessionRecord } from "../../../src/domain/bus/bus-files.js";
import { labelCharsMax } from "../../../src/domain/bus/limits.js";
import { decodeSessionRecord, encodeSessionRecord } from "../../../src/domain/bus/records.js";

const id = "01a232e9-7f64-7000-8000-000000000001";
const written: SessionRecord = {
  id,
  label: "billing-core",
  pid: 4242,
  started: "98765",
  bootId: "boot-1",
  pidNamespace: "pid:[4026531836]",
  joinToken: "token-1",
  cwd: "/repo/src",
  root: "/repo",
  armed: true,
  wake: false,
  joinedAt: "2026-01-01T00:00:00.000Z",
};

describe("session records", () => {
  it("reads back exactly what it writes, one JSON line", () => {
    const text = encodeSessionRecord(written);
    expect(text.endsWith("}\n")).toBe(true);
    expect(decodeSessionRecord(text, id)._unsafeUnwrap()).toEqual(written);
  });

  it("tolerates extra fields and null or absent optional ones, keeping only the known fields", () => {
    const { started: _s, bootId: _b, ...bare } = written;
    const stored = { ...bare, started: null, pidNamespace: "", future: [1, 2] };
    const { pidNamespace: _p, ...expected } = bare;
    expect(decodeSessionRecord(JSON.stringify(stored), id)._unsafeUnwrap()).toEqual(expected);
  });

  it("reads a newer build's longer label", () => {
    const label = "l".repeat(labelCharsMax + 10);
    expect(decodeSessionRecord(JSON.stringify({ ...written, label }), id)._unsafeUnwrap().label).toBe(label);
  });

  it("tells bad JSON, a wrong shape and an id that is not its file's apart", () => {
    expect(decodeSessionRecord("{", id)._unsafeUnwrapErr()).toEqual({ kind: "not-json" });
    for (const bad of [
      { ...written, pid: 0 },
      { ...written, armed: "yes" },
      { ...written, cwd: "relative" },
      { ...written, joinToken: "a~b" },
      { ...written, id: "../x" },
      { ...written, label: "" },
      (({ wake: _, ...rest }) => rest)(written),
      [written],
    ]) {
      expect(decodeSessionRecord(JSON.stringify(bad), id)._unsafeUnwrapErr().kind).toBe("wrong-shape");
    }
    expect(decodeSessionRecord(JSON.stringify(written), "other")._unsafeUnwrapErr()).toEqual({
      kind: "name-mismatch",
      id,
      fileId: "other",
    });
  });

  it("refuses to write a record outside its shape: a bad id, a label over the cap, a relative root", () => {
    expect(() => encodeSessionRecord({ ...written, id: "a/b" })).toThrow(/invalid session record/);
    expect(() => encodeSessionRecord({ ...written, label: "l".repeat(labelCharsMax + 1) })).toThrow();
    expect(() => encodeSessionRecord({ ...written, root: "repo" })).toThrow();
  });
});
