// The tail of a session file: read again when it changed, cut at its bound with the first torn
// line dropped, and nothing for what is not a regular file.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSessionFileTail } from "../../../src/adapters/node/session-file-tail.js";
import { sessionFileTailBytesMax } from "../../../src/domain/mail/limits.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "session-tail-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("createSessionFileTail", () => {
  it("reads the lines, and again after an append", () => {
    const file = join(dir, "s.jsonl");
    writeFileSync(file, "a\nb\n");
    const tail = createSessionFileTail();
    expect(tail(file)).toEqual(["a", "b", ""]);
    appendFileSync(file, "c\n");
    expect(tail(file)).toEqual(["a", "b", "c", ""]);
  });

  it("reads at most its bound from the end, dropping the line the cut tore", () => {
    const file = join(dir, "big.jsonl");
    const first = `${"x".repeat(sessionFileTailBytesMax)}\n`;
    writeFileSync(file, `${first}last\n`);
    expect(createSessionFileTail()(file)).toEqual(["last", ""]);
  });

  it("reads nothing of a folder, a link, a missing file or no file", () => {
    const tail = createSessionFileTail();
    mkdirSync(join(dir, "folder"));
    writeFileSync(join(dir, "real.jsonl"), "a\n");
    symlinkSync(join(dir, "real.jsonl"), join(dir, "link.jsonl"));
    for (const path of [join(dir, "folder"), join(dir, "link.jsonl"), join(dir, "none"), undefined]) {
      expect(tail(path)).toEqual([]);
    }
  });
});
