// One recipient address in its own mail root, the transcript its fake Pi keeps, the processes
// started for it, and the invariants every kill-recipient case ends with.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { createFsMailStore } from "../../../src/adapters/fs/mail/fs-mail-store.js";
import { nodeFs } from "../../../src/adapters/node/node-fs.js";
import { currentUid } from "../../../src/adapters/node/process-user.js";
import type { Address } from "../../../src/domain/mail/address.js";
import type { Envelope } from "../../../src/domain/mail/envelope.js";
import type { MailStore } from "../../../src/ports/mail/mail-store.js";
import { spawnWorker, type Worker } from "./children.js";
import { boxNames, newAddress, newEnvelope } from "./mail.js";

/** Bound on every wait for a worker. */
export const waitMs = 20_000;
let caseNumber = 0;

/** One mail root with one recipient address, its transcript, and a peer that writes to it. */
export interface Scene {
  root: string;
  store: MailStore;
  recipient: Address;
  peer: Address;
  transcriptPath: string;
  /** The bundled recipient worker. */
  script: string;
  /** Every process started for the recipient, in order. */
  runs: Worker[];
}

export function newScene(scratch: string, script: string): Scene {
  const dir = join(scratch, `case-${++caseNumber}`);
  const root = join(dir, "mail");
  const store = createFsMailStore({ fs: nodeFs, root, uid: currentUid() });
  store.openRoot()._unsafeUnwrap();
  return {
    root,
    store,
    recipient: newAddress(),
    peer: newAddress(),
    transcriptPath: join(dir, "transcript"),
    script,
    runs: [],
  };
}

export function deliver(scene: Scene, kind: "request" | "reply", inReplyTo: string[] = []): Envelope {
  const nowMs = Date.now();
  const envelope = newEnvelope(
    {
      from: scene.peer,
      to: scene.recipient,
      kind,
      body: `${kind} ${nowMs}`,
      inReplyTo,
      ...(kind === "reply" ? { status: "done" as const } : {}),
    },
    nowMs,
  );
  scene.store.deliver(envelope, nowMs, { durable: true })._unsafeUnwrap();
  return envelope;
}

/** Starts the recipient and waits until it recovered and scanned once; one killed on the way returns too. */
export async function startRecipient(scene: Scene, env: Record<string, string> = {}): Promise<Worker> {
  const worker = spawnWorker(scene.script, {
    ROOT: scene.root,
    ADDRESS: scene.recipient,
    AGENT_DIR: join(scene.root, "..", "agent"),
    TRANSCRIPT: scene.transcriptPath,
    ...env,
  });
  scene.runs.push(worker);
  await worker.waitFor("ready or killed", (lines) => lines.includes("ready") || worker.hasClosed(), waitMs);
  return worker;
}

export const has = (line: string) => (lines: readonly string[]) => lines.includes(line);

export function idsOf(worker: Worker, verb: "injected" | "entered" | "appended"): string[] {
  return worker.lines.filter((line) => line.startsWith(`${verb} `)).map((line) => line.split(" ")[1]!);
}

export function transcript(scene: Scene): string[] {
  try {
    return readFileSync(scene.transcriptPath, "utf8")
      .split("\n")
      .filter((id) => id !== "");
  } catch {
    return [];
  }
}

export function journal(scene: Scene): string[] | undefined {
  try {
    return JSON.parse(readFileSync(join(scene.root, scene.recipient, "claiming.json"), "utf8")) as string[];
  } catch {
    return undefined;
  }
}

export async function expectKilled(worker: Worker): Promise<void> {
  const exit = await worker.closed;
  expect(exit.signal, `the recipient was to kill itself: ${worker.stderr()}`).toBe("SIGKILL");
}

/** The invariants every case ends with: each mail shown exactly once, nothing waiting or claimed
 * and unshown, no process warned or saw a double injection, and a later process injected only
 * mail that no earlier one had shown. */
export function expectAllShownOnce(scene: Scene, sent: readonly Envelope[]): void {
  const shown = transcript(scene);
  expect(shown.toSorted()).toEqual(sent.map((e) => e.id).toSorted());
  expect(boxNames(scene.root, scene.recipient, "new")).toEqual([]);
  // The journal is rewritten in place, never removed: at the end it lists nothing.
  expect(journal(scene) ?? []).toEqual([]);
  for (const run of scene.runs) {
    expect(run.lines.filter((line) => line.startsWith("violation") || line.startsWith("notice"))).toEqual([]);
  }
  const shownBefore = new Set<string>();
  for (const run of scene.runs) {
    for (const id of idsOf(run, "injected"))
      expect(shownBefore.has(id), `${id} injected after it was shown`).toBe(false);
    for (const id of [...idsOf(run, "entered"), ...idsOf(run, "appended")]) shownBefore.add(id);
  }
}

export async function exitCleanly(worker: Worker): Promise<void> {
  worker.send("exit");
  expect((await worker.closed).code).toBe(0);
}

export async function waitForTranscript(scene: Scene, sent: readonly Envelope[], worker: Worker): Promise<void> {
  await worker.waitFor("every mail shown", () => sent.every((mail) => transcript(scene).includes(mail.id)), waitMs);
}
