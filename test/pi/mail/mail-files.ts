// Reading the mail root the extension wrote, to check what reached disk (and what did not).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeEnvelope, type Envelope } from "../../../src/domain/mail/envelope.js";

/** Fixed session ids (UUIDv7-shaped), each with its own short id. */
export const ids = {
  alice: "a11ce000-0000-7000-8000-000000000001",
  bob: "b0b00000-0000-7000-8000-000000000002",
  carol: "ca201000-0000-7000-8000-000000000003",
  dave: "da7e0000-0000-7000-8000-000000000004",
  /** Never started: a closed session reached by its full id. */
  closed: "c105ed00-0000-7000-8000-000000000005",
} as const;

const boxes = ["tmp", "new", "cur", "sent"] as const;
export type Box = (typeof boxes)[number];

function names(folder: string): string[] {
  return existsSync(folder) ? readdirSync(folder).filter((n) => !n.startsWith(".")) : [];
}

/** The envelopes in one box of one address folder, in file-name (send-time) order. */
export function envelopesIn(root: string, address: string, box: Box): Envelope[] {
  const folder = join(root, address, box);
  return names(folder)
    .sort()
    .map((name) => decodeEnvelope(readFileSync(join(folder, name), "utf8"))._unsafeUnwrap());
}

/** Every mail file under every address folder (running records and journals left out). */
export function mailFiles(root: string): string[] {
  return names(root)
    .filter((address) => address !== "running")
    .flatMap((address) => boxes.flatMap((box) => names(join(root, address, box)).map((n) => `${address}/${box}/${n}`)));
}

/** The envelopes an address received, claimed or not. */
export function received(root: string, address: string): Envelope[] {
  return [...envelopesIn(root, address, "new"), ...envelopesIn(root, address, "cur")];
}

export function recordPath(root: string, address: string): string {
  return join(root, "running", `${address}.json`);
}

/** The running record as JSON, or undefined when there is none. */
export function runningRecord(root: string, address: string): Record<string, unknown> | undefined {
  const path = recordPath(root, address);
  if (!existsSync(path)) return undefined;
  const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (typeof parsed !== "object" || parsed === null) throw new Error(`${path} is not a JSON object`);
  return parsed as Record<string, unknown>;
}
