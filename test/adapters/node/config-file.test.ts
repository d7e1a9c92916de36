// The settings file is read at session start and at each send and ask: whatever a process of this
// user puts in its place must be answered at once, never wait (a FIFO) nor be read as settings.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createConfigFile } from "../../../src/adapters/node/config-file.js";

const dirs: string[] = [];
const children: ChildProcess[] = [];

function agentDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "config-file-"));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null)
      process.kill(child.pid, "SIGKILL");
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("createConfigFile", () => {
  it("reads a regular file, and one reached through a link", () => {
    const dir = agentDir();
    writeFileSync(join(dir, "real.json"), '{"hopLimit": 3}');
    expect(createConfigFile(dir).read()).toEqual({ kind: "missing" });
    symlinkSync(join(dir, "real.json"), join(dir, "session-mail.json"));
    expect(createConfigFile(dir).read()).toEqual({ kind: "text", text: '{"hopLimit": 3}' });
  });

  it("answers a FIFO at once as unreadable, without waiting for a writer or reading what one writes", () => {
    const dir = agentDir();
    const path = join(dir, "session-mail.json");
    execFileSync("mkfifo", [path]);
    // A writer that comes later, so that a read that waits is released (and then fails on the pipe,
    // ESPIPE) instead of hanging the suite: with no writer at all it would wait forever.
    const writer = spawn(
      process.execPath,
      ["-e", `setTimeout(() => require("node:fs").writeFileSync(${JSON.stringify(path)}, "{}"), 1500)`],
      {
        stdio: "ignore",
      },
    );
    children.push(writer);
    expect(createConfigFile(dir).read()).toEqual({ kind: "unreadable", reason: "not a regular file" });
  });

  it("answers a folder in its place as unreadable", () => {
    const dir = agentDir();
    mkdirSync(join(dir, "session-mail.json"));
    expect(createConfigFile(dir).read()).toEqual({ kind: "unreadable", reason: "not a regular file" });
  });
});
