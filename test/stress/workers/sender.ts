// A sending process: delivers COUNT envelopes from FROM to TO through the real maildir store and
// prints `sent <id>` after each delivery returned, so every printed id was published.
//   ROOT, FROM, TO   mail root and addresses
//   COUNT            sends before it exits (prints `done <count>`)
//   DURABLE          "1": fsync the file and new/ (production), "0": skip the fsyncs
//   WAIT_GO          "1": print `ready`, then start on a `go` line on stdin; otherwise start at once
//   ON_FAIL          "continue": print `failed <id> <errno>` for a delivery that failed, and go on
//                    (a send racing a prune may find no folder); otherwise a failure throws
//   DIE_AT           `<point>:<n>`: SIGKILL itself at that point of the n-th delivery, where point is
//                    created (empty file in tmp/), half-written, synced (whole file, fsynced),
//                    before-rename or after-rename (published, id not printed)
import { writeSync } from "node:fs";
import { createInterface } from "node:readline";
import { createFsMailStore } from "../../../src/adapters/fs/mail/fs-mail-store.js";
import type { FsLike } from "../../../src/adapters/fs/shared/fs-like.js";
import { nodeFs } from "../../../src/adapters/node/node-fs.js";
import { currentUid } from "../../../src/adapters/node/process-user.js";
import { type Address, isAddress } from "../../../src/domain/mail/address.js";
import { newEnvelope } from "../harness/mail.js";

type DiePoint = "created" | "half-written" | "synced" | "before-rename" | "after-rename";
const diePoints: readonly string[] = ["created", "half-written", "synced", "before-rename", "after-rename"];

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") throw new Error(`sender: ${name} is not set`);
  return value;
}

function address(name: string): Address {
  const value = required(name);
  if (!isAddress(value)) throw new Error(`sender: ${name} is not an address`);
  return value;
}

function parseDieAt(text: string | undefined): { point: DiePoint; send: number } | undefined {
  if (text === undefined || text === "") return undefined;
  const [point, send] = text.split(":");
  if (point === undefined || !diePoints.includes(point) || !/^\d+$/.test(send ?? "")) {
    throw new Error(`sender: bad DIE_AT ${text}`);
  }
  return { point: point as DiePoint, send: Number(send) };
}

const root = required("ROOT");
const from = address("FROM");
const to = address("TO");
const count = Number(required("COUNT"));
const durable = required("DURABLE") === "1";
const dieAt = parseDieAt(process.env.DIE_AT);
let current = 0;
let renamed = false;

function print(line: string): void {
  writeSync(1, `${line}\n`);
}

function dieIf(point: DiePoint): void {
  if (dieAt?.point === point && dieAt.send === current) process.kill(process.pid, "SIGKILL");
}

/** node:fs with the kill points of DIE_AT; the delivery's own temp file is the only file it creates. */
const fs: FsLike = {
  constants: nodeFs.constants,
  openSync(path, flags, mode) {
    const fd = nodeFs.openSync(path, flags, mode);
    if ((flags & nodeFs.constants.O_CREAT) !== 0) dieIf("created");
    return fd;
  },
  closeSync: (fd) => nodeFs.closeSync(fd),
  futimesSync: (fd, atime, mtime) => nodeFs.futimesSync(fd, atime, mtime),
  fchmodSync: (fd, mode) => nodeFs.fchmodSync(fd, mode),
  opendirSync: (path) => nodeFs.opendirSync(path),
  ftruncateSync: (fd, length) => nodeFs.ftruncateSync(fd, length),
  readSync: (fd, buffer, offset, length, position) => nodeFs.readSync(fd, buffer, offset, length, position),
  writeSync(fd, buffer, offset, length, position) {
    if (dieAt?.point === "half-written" && dieAt.send === current && length > 1) {
      nodeFs.writeSync(fd, buffer, offset, length >> 1, position);
      dieIf("half-written");
    }
    return nodeFs.writeSync(fd, buffer, offset, length, position);
  },
  fsyncSync(fd) {
    nodeFs.fsyncSync(fd);
    // The first fsync of a delivery is the file's; the folder's comes after the rename.
    if (!renamed) dieIf("synced");
  },
  fstatSync: (fd) => nodeFs.fstatSync(fd),
  lstatSync: (path) => nodeFs.lstatSync(path),
  renameSync(oldPath, newPath) {
    dieIf("before-rename");
    nodeFs.renameSync(oldPath, newPath);
    renamed = true;
    dieIf("after-rename");
  },
  unlinkSync: (path) => nodeFs.unlinkSync(path),
  linkSync: (existingPath, newPath) => nodeFs.linkSync(existingPath, newPath),
  mkdirSync: (path, options) => nodeFs.mkdirSync(path, options),
  chmodSync: (path, mode) => nodeFs.chmodSync(path, mode),
  readdirSync: nodeFs.readdirSync,
  rmSync: (path, options) => nodeFs.rmSync(path, options),
  readlinkSync: (path) => nodeFs.readlinkSync(path),
  realpathSync: (path) => nodeFs.realpathSync(path),
};

function sendAll(): void {
  const store = createFsMailStore({ fs, root, uid: currentUid() });
  const parent = process.ppid;
  for (current = 1; current <= count; current++) {
    // Orphaned (the test runner died): stop rather than fill the disk.
    if (process.ppid !== parent) process.exit(1);
    renamed = false;
    const nowMs = Date.now();
    const envelope = newEnvelope({ from, to, kind: "request", body: `request ${current} from ${from}` }, nowMs);
    const delivered = store.deliver(envelope, nowMs, { durable });
    if (delivered.isErr()) {
      if (process.env.ON_FAIL !== "continue")
        throw new Error(`sender: delivery failed: ${JSON.stringify(delivered.error)}`);
      print(`failed ${envelope.id} ${delivered.error.kind === "io" ? delivered.error.code : delivered.error.kind}`);
      continue;
    }
    print(`sent ${envelope.id}`);
  }
  print(`done ${count}`);
}

if (process.env.WAIT_GO === "1") {
  const input = createInterface({ input: process.stdin });
  input.on("line", (line) => {
    if (line !== "go") return;
    input.close();
    sendAll();
    process.exit(0);
  });
  print("ready");
} else {
  print("ready");
  sendAll();
}
