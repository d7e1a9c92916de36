// Nothing a send reported delivered is lost: until it reaches its session (shown, taken over, or
// dropped by the user's stop) it is in the recipient's new/, or in its cur/ and named by its claim
// journal, so a crash at any moment finds it again. The journal itself is never torn.
import { reached, type Transcript } from "./fake-agent.js";
import { mailRoot, type World } from "./world.js";

type Journal = { kind: "names"; names: Set<string> } | { kind: "torn"; why: string };

/** The claim journal on the volume: a missing one names nothing; one that is not a JSON list of
 * names is torn (the store writes it whole, in place as one page or by rename). */
function journalAt(world: World, folder: string): Journal {
  const path = `${folder}/claiming.json`;
  if (!world.vol.existsSync(path)) return { kind: "names", names: new Set() };
  const text = String(world.vol.readFileSync(path, "utf8"));
  try {
    const raw: unknown = JSON.parse(text);
    if (!Array.isArray(raw)) return { kind: "torn", why: "not a list" };
    return { kind: "names", names: new Set(raw.map(String)) };
  } catch {
    return {
      kind: "torn",
      why: `not JSON (${text.length} bytes, ending ${JSON.stringify(text.trimEnd().slice(-24))})`,
    };
  }
}

/** One transcript per address (a twin shares its session file), with a label for messages. */
function transcripts(world: World): Map<string, { transcript: Transcript; label: string }> {
  const byAddress = new Map<string, { transcript: Transcript; label: string }>();
  for (const s of world.sessions) {
    if (!byAddress.has(s.address)) byAddress.set(s.address, { transcript: s.transcript, label: s.name });
  }
  return byAddress;
}

/** After every step: no journal is torn, and every delivered envelope that has not reached its
 * session is waiting in new/, or claimed into cur/ and journaled. */
export function checkNothingLost(world: World): void {
  const sessions = transcripts(world);
  const journals = new Map<string, Journal>();
  for (const [address, { label }] of sessions) {
    const journal = journalAt(world, `${mailRoot}/${address}`);
    journals.set(address, journal);
    if (journal.kind === "torn") world.violations.push(`${label}'s claim journal is torn: ${journal.why}`);
  }
  for (const [id, { envelope, name }] of world.unreached) {
    const session = sessions.get(envelope.to);
    if (session === undefined || reached(session.transcript, id)) {
      world.unreached.delete(id);
      continue;
    }
    const folder = `${mailRoot}/${envelope.to}`;
    if (world.vol.existsSync(`${folder}/new/${name}`)) continue;
    // A prune that died with the folder in its tombstone: the next prune, or that session's own
    // start, puts it back (the quiet check at the end sees it delivered).
    if (world.vol.existsSync(`${mailRoot}/.pruning-${envelope.to}/new/${name}`)) continue;
    const what = `${envelope.kind} ${id} to ${session.label}`;
    if (!world.vol.existsSync(`${folder}/cur/${name}`)) {
      world.violations.push(`${what} was delivered and is gone unread: not in its new/ nor its cur/`);
      world.unreached.delete(id);
      continue;
    }
    const journal = journals.get(envelope.to);
    if (journal?.kind === "names" && !journal.names.has(name)) {
      world.violations.push(
        `${what} is claimed and unread, and its claim journal does not name it (a crash now loses it)`,
      );
      world.unreached.delete(id);
    }
  }
}

/** Delivered envelopes that have not reached their session yet: the world is not quiet while any
 * waits (a guest twin takes its inbox over only at its next ownership check). */
export function unreachedCount(world: World): number {
  const sessions = transcripts(world);
  let count = 0;
  for (const [id, { envelope }] of world.unreached) {
    const session = sessions.get(envelope.to);
    if (session !== undefined && !reached(session.transcript, id)) count++;
  }
  return count;
}

/** Once the world is quiet, every delivered envelope reached its session. */
export function checkAllReached(world: World): void {
  const sessions = transcripts(world);
  for (const [id, { envelope }] of world.unreached) {
    const session = sessions.get(envelope.to);
    if (session === undefined || reached(session.transcript, id)) continue;
    world.violations.push(`${envelope.kind} ${id} to ${session.label} was delivered and never reached it`);
  }
}
