import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFsWatcher } from "../../../src/adapters/node/fs-watcher.js";
import type { WatchHandle } from "../../../src/ports/shared/watcher.js";

const tempDirs: string[] = [];
const handles: WatchHandle[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "fs-watcher-"));
  tempDirs.push(dir);
  return dir;
}

/** Resolves when `done()` is true, polling on macrotasks; fails past the deadline instead of hanging. */
async function waitFor(done: () => boolean, deadlineMs = 5_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("condition not met before the deadline");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

afterEach(() => {
  for (const handle of handles.splice(0)) handle.close();
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("createFsWatcher", () => {
  it("gives a hint after a file is created in the watched folder", async () => {
    const dir = tempDir();
    let hints = 0;
    handles.push(createFsWatcher().watch(dir, () => hints++));
    writeFileSync(join(dir, "mail.json"), "{}");
    await waitFor(() => hints > 0);
    expect(hints).toBeGreaterThan(0);
  });

  it("names the entry a rename moved into the watched folder", async () => {
    const dir = tempDir();
    const outside = tempDir();
    const names: Array<string | undefined> = [];
    handles.push(createFsWatcher().watch(dir, (name) => names.push(name)));
    writeFileSync(join(outside, "001-mail.json"), "{}");
    renameSync(join(outside, "001-mail.json"), join(dir, "001-mail.json"));
    await waitFor(() => names.length > 0);
    expect(names).toContain("001-mail.json");
  });

  it("gives no hint after close, and a second close is harmless", async () => {
    const dir = tempDir();
    const watcher = createFsWatcher();
    let closedHints = 0;
    let controlHints = 0;
    const closed = watcher.watch(dir, () => closedHints++);
    closed.close();
    closed.close();
    // A watch still open on the same folder sees the change; the closed one saw the same events and stayed quiet.
    handles.push(watcher.watch(dir, () => controlHints++));
    writeFileSync(join(dir, "mail.json"), "{}");
    await waitFor(() => controlHints > 0);
    expect(closedHints).toBe(0);
  });

  it("does not throw when the folder is missing, and its handle closes twice", () => {
    const handle = createFsWatcher().watch(join(tempDir(), "missing"), () => {});
    handle.close();
    expect(() => handle.close()).not.toThrow();
  });

  it("keeps a throw from the hint callback from escaping, and reports it", async () => {
    const dir = tempDir();
    const reported: unknown[] = [];
    const boom = new Error("callback bug");
    const watcher = createFsWatcher({ onCallbackError: (error) => reported.push(error) });
    handles.push(
      watcher.watch(dir, () => {
        throw boom;
      }),
    );
    writeFileSync(join(dir, "mail.json"), "{}");
    await waitFor(() => reported.length > 0);
    expect(reported[0]).toBe(boom);
  });

  it("survives a reporter that throws too", async () => {
    const dir = tempDir();
    let reports = 0;
    const watcher = createFsWatcher({
      onCallbackError: () => {
        reports++;
        throw new Error("reporter bug");
      },
    });
    handles.push(
      watcher.watch(dir, () => {
        throw new Error("callback bug");
      }),
    );
    writeFileSync(join(dir, "mail.json"), "{}");
    await waitFor(() => reports > 0);
    expect(reports).toBeGreaterThan(0);
  });
});
