// What must hold after every step of every schedule, and what must hold once the world is quiet.

import { decodeEnvelope } from "../../../src/domain/mail/envelope.js";
import { askWaitMs } from "../../../src/domain/mail/limits.js";
import { checkAllReached, checkNothingLost } from "./delivery-invariants.js";
import { hopLimit, inboxFiles, mailRoot, pollMs, type World } from "./world.js";

/** Answers per request or ask id, from every reply ever published. */
function answers(world: World): Map<string, { count: number; statuses: string[] }> {
  const byId = new Map<string, { count: number; statuses: string[] }>();
  for (const envelope of world.published) {
    if (envelope.kind !== "reply") continue;
    for (const id of envelope.in_reply_to) {
      const entry = byId.get(id) ?? { count: 0, statuses: [] };
      entry.count++;
      entry.statuses.push(envelope.status);
      byId.set(id, entry);
    }
  }
  return byId;
}

/** Entries of a folder of the volume, or [] when it is missing. */
function names(world: World, path: string): string[] {
  try {
    return (world.vol.readdirSync(path) as string[]).map(String);
  } catch {
    return [];
  }
}

/** Every file in some new/ or cur/ must be a whole envelope. Published files never change, so each
 * path is read once. */
function checkNoTornFiles(world: World): void {
  for (const address of names(world, mailRoot)) {
    for (const box of ["new", "cur"]) {
      const folder = `${mailRoot}/${address}/${box}`;
      for (const name of names(world, folder)) {
        const path = `${folder}/${name}`;
        if (world.verified.has(path)) continue;
        const text = String(world.vol.readFileSync(path, "utf8"));
        if (decodeEnvelope(text).isErr()) world.violations.push(`torn or invalid file visible: ${path}`);
        world.verified.add(path);
      }
    }
  }
}

/** Nothing is written outside the mail root (and the agent dir's config file, and in the combined
 * simulator what the bus holds). */
function checkNothingOutsideRoot(world: World): void {
  for (const [folder, expected] of Object.entries(world.outside)) {
    for (const name of names(world, folder)) {
      if (!expected.includes(name)) world.violations.push(`file outside the mail root: ${folder}/${name}`);
    }
  }
}

/** A session that runs keeps its running record: nobody else deletes it, whichever pid namespace
 * either side runs in, and however long ago it was written. A process that has not published one
 * yet (it started on a full disk, or it is a twin's guest) has none to keep. One way to lose it
 * remains, a pruner that dies between moving a stale record aside and putting back the one that
 * replaced it meanwhile: the session writes it again at its next poll, so a record may be missing
 * for less than one poll interval (longer only while the disk is full). */
function checkRecordsOfRunningSessions(world: World): void {
  for (const session of world.sessions) {
    const instance = session.instance;
    if (instance === undefined || instance.crash.crashed || !instance.agent.alive) continue;
    if (!world.recordWriters.has(instance)) continue;
    if (world.vol.existsSync(`${mailRoot}/running/${session.address}.json`)) {
      world.recordMissingSince.delete(instance);
      continue;
    }
    const since = world.recordMissingSince.get(instance) ?? world.monoMs;
    world.recordMissingSince.set(instance, world.diskFullSteps > 0 ? world.monoMs : since);
    if (world.monoMs - since >= pollMs) {
      world.violations.push(`${session.label} runs, but its running record is gone (for ${world.monoMs - since} ms)`);
    }
  }
}

export function checkStep(world: World): void {
  const v = world.violations;
  checkNoTornFiles(world);
  checkNothingOutsideRoot(world);
  checkNothingLost(world);
  checkRecordsOfRunningSessions(world);
  const kinds = new Map(world.published.map((e) => [e.id, e.kind]));
  for (const [id, entry] of answers(world)) {
    // Every request and ask is answered at most once, and a request never "stopped".
    if (entry.count > 1) v.push(`${id} answered ${entry.count} times (${entry.statuses.join(", ")})`);
    if (kinds.get(id) === "request" && entry.statuses.includes("stopped")) v.push(`request ${id} answered stopped`);
    if (kinds.get(id) === "message") v.push(`message ${id} was answered`);
  }
  // Hop counts never pass the limit without input: sends and asks are refused at it.
  for (const envelope of world.published) {
    if ((envelope.kind === "message" || envelope.kind === "ask") && envelope.hops >= hopLimit) {
      v.push(`${envelope.kind} ${envelope.id} sent with ${envelope.hops} hops (limit ${hopLimit})`);
    }
    if (envelope.kind === "request" && envelope.hops !== 0)
      v.push(`request ${envelope.id} carries ${envelope.hops} hops`);
  }
  // No ask waits past its bound.
  for (const session of world.sessions) {
    const ask = session.instance?.ask;
    if (ask !== undefined && ask.outcome === undefined && world.monoMs - ask.startedMonoMs > askWaitMs) {
      v.push(`${session.name}'s ask has waited ${world.monoMs - ask.startedMonoMs} ms`);
    }
  }
}

/** Once every session runs, nothing waits and every run completed: every request and ask is
 * answered exactly once, unless the process that owed the answer died (the spec keeps it in memory). */
export function checkQuiet(world: World): void {
  const counts = answers(world);
  for (const envelope of world.published) {
    if (envelope.kind !== "request" && envelope.kind !== "ask") continue;
    if (world.exempt.has(envelope.id)) continue;
    const count = counts.get(envelope.id)?.count ?? 0;
    if (count !== 1) world.violations.push(`${envelope.kind} ${envelope.id} to ${envelope.to} answered ${count} times`);
  }
  if (inboxFiles(world, "new").length > 0) world.violations.push("mail still waiting in new/ after quiescing");
  checkAllReached(world);
}
