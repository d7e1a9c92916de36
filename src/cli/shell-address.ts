// The shell's own address on the mail root: one id made once per user and kept in a file of the
// root (a dot-name, which no implementation takes for an address folder), so replies to it land in
// one inbox over time. Asks that run at once take the next slot (`<id>-2`, `<id>-3`…): a slot's inbox
// is owned by one process at a time, so two shells never take each other's answers.
import { closeSync, linkSync, lstatSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { nodeCrypto } from "../adapters/node/builtins.js";
import { type Address, isAddress } from "../domain/mail/address.js";

/** How many shells may wait on answers at once. */
export const shellSlotsMax = 16;

const fileName = ".switchboard-shell";

/** The shell's base address, made on first use (the root must exist: the store opens it first). */
export function shellBaseAddress(root: string): Address {
  const path = join(root, fileName);
  const existing = readAddress(path);
  if (existing !== undefined) return existing;
  // Written whole under a temporary name, then linked into place: a second shell doing the same at
  // once loses the link and reads the winner's id.
  const tmp = `${path}.${process.pid}.${nodeCrypto().randomUUID()}.tmp`;
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeSync(fd, `${nodeCrypto().randomUUID()}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  } finally {
    unlinkSync(tmp);
  }
  const made = readAddress(path);
  if (made === undefined) throw new Error(damagedShellFile(path));
  return made;
}

/** What is wrong with a shell address file that holds no address, and what fixes it. */
const damagedShellFile = (path: string) =>
  `${path} does not hold the shell's address (it is damaged). Remove it: the next send or ask makes a new one.`;

/** The shell address file of `root` when it is there but holds no address (a folder, other text). */
export function damagedShellAddress(root: string): string | undefined {
  const path = join(root, fileName);
  try {
    return readAddress(path) === undefined && lstatSync(path, { throwIfNoEntry: false }) !== undefined
      ? path
      : undefined;
  } catch {
    return path;
  }
}

/** The shell's base address when one was made (undefined: none yet, and nothing sent). */
export const knownShellAddress = (root: string) => readAddress(join(root, fileName));

function readAddress(path: string): Address | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "EISDIR") throw new Error(damagedShellFile(path));
    throw e;
  }
  const id = text.trim();
  return isAddress(id) ? id : undefined;
}

/** Slot 1 is the base address; slot k the base with `-k`. */
export function slotAddress(base: Address, slot: number): Address {
  return (slot === 1 ? base : `${base}-${slot}`) as Address;
}

export const slotName = (slot: number) => (slot === 1 ? "shell" : `shell-${slot}`);
