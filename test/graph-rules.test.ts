// The two graph rules of the architecture test fail when they should, on fake sources: an import
// cycle (of types too) and a part reaching another part other than through its factory.
import { describe, expect, it } from "vitest";
import { importCycles, partCalls } from "./graph-rules.js";
import type { SourceFile } from "./source-text.js";

const fake = (path: string, ...lines: string[]): SourceFile => ({ path, text: lines.join("\n") });

describe("importCycles", () => {
  it("names each cycle once, type imports included, and a file importing itself", () => {
    const files = [
      fake("src/domain/mail/a.ts", 'import type { B } from "./b.js";', "export type A = B;"),
      fake("src/domain/mail/b.ts", 'import { c } from "./c.js";', "export type B = number;"),
      fake("src/domain/mail/c.ts", 'import type { A } from "./a.js";', "export const c = 1;"),
      fake("src/domain/mail/self.ts", 'export { s } from "./self.js";', "export const s = 1;"),
      fake("src/domain/mail/d.ts", 'import { c } from "./c.js";', "export const d = c;"),
    ];
    expect(importCycles(files).map((v) => v.detail)).toEqual([
      "is in an import cycle of 3 files: src/domain/mail/a.ts, src/domain/mail/b.ts, src/domain/mail/c.ts",
      "is in an import cycle of 1 files: src/domain/mail/self.ts",
    ]);
  });

  it("finds none in a chain that only goes down", () => {
    const files = [
      fake("src/domain/mail/top.ts", 'import { mid } from "./mid.js";'),
      fake("src/domain/mail/mid.ts", 'import type { Low } from "./low.js";', "export const mid = 1;"),
      fake("src/domain/mail/low.ts", "export type Low = 1;"),
    ];
    expect(importCycles(files)).toEqual([]);
  });
});

describe("partCalls", () => {
  const parts = (...files: SourceFile[]) => partCalls(files).map((v) => `${v.file}:${v.line} ${v.detail}`);

  it("lets the composition root and an index make and pass on parts, and a part import another's type", () => {
    expect(
      parts(
        fake("src/domain/mail/engine/mailbox-engine.ts", 'import { createRun } from "./run.js";'),
        fake("src/domain/mail/engine/index.ts", 'export { createMailboxEngine } from "./mailbox-engine.js";'),
        fake("src/domain/mail/engine/settle.ts", 'import type { Run } from "./run.js";'),
        fake("src/domain/mail/engine/run.ts", 'import { createBoundedIdSet } from "../../shared/bounded-id-set.js";'),
        fake("src/domain/mail/engine/context.ts", 'import type { Notices } from "./notices.js";'),
        fake("src/domain/mail/engine/notices.ts", 'import { rememberedIdsMax } from "../limits.js";'),
      ),
    ).toEqual([]);
  });

  it("flags a part that makes another, and a context that names a part", () => {
    expect(
      parts(
        fake("src/domain/mail/engine/lifecycle.ts", "// starts the poll", 'import { createPoll } from "./poll.js";'),
        fake("src/domain/mail/engine/poll.ts", 'import type { Intake } from "./intake.js";'),
        fake("src/domain/mail/engine/intake.ts", "export interface Intake {}"),
        fake("src/domain/mail/engine/context.ts", 'import type { Poll } from "./poll.js";'),
      ),
    ).toEqual([
      "src/domain/mail/engine/lifecycle.ts:2 calls createPoll: only the composition root makes parts",
      "src/domain/mail/engine/context.ts:1 names the part src/domain/mail/engine/poll.ts in the context",
    ]);
  });
});
