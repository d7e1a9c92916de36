// Model-based test of the fs mail store: random sequences of store calls run against the real store
// (memfs and node fs in a temp folder) and against a plain in-memory map of boxes; after every call
// what it can change must read back as the model holds it, and at the end of the run everything
// must. A failure prints the seed and the shrunk command sequence that replays it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createFsMailStore } from "../../../../src/adapters/fs/mail/fs-mail-store.js";
import type { Address } from "../../../../src/domain/mail/address.js";
import { type Envelope, envelopeFileName } from "../../../../src/domain/mail/envelope.js";
import type { ClaimOutcome, MailStore } from "../../../../src/ports/mail/mail-store.js";
import type { StoreError } from "../../../../src/ports/shared/store-error.js";
import { address, alice, type Backend, bob, carol, memoryBackend, nodeBackend } from "../backends.js";

/** `running` is named like an address but is the running records' folder: never a mailbox. */
const runningName = address("running");
const dave = address("dave.plain-1");
const addresses: readonly Address[] = [alice, bob, carol, dave, runningName];
const baseMs = 1_760_000_000_000;

interface ModelBox {
  /** Only `<address>/tmp` exists (a claim journal was written to a box never opened). */
  partial: boolean;
  waiting: Map<string, Envelope>;
  claimed: Map<string, Envelope>;
  sent: Map<string, Envelope>;
  journal: string[];
}

interface Model {
  boxes: Map<Address, ModelBox>;
  running: Map<Address, string>;
  nextId: number;
}

interface Real {
  store: MailStore;
  backend: Backend;
}

type Cmd = fc.Command<Model, Real>;

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sorted = (names: Iterable<string>) => [...names].sort(byCodeUnits);
const pick = <T>(items: readonly T[], index: number): T | undefined =>
  items.length === 0 ? undefined : items[index % items.length];

function emptyBox(partial: boolean): ModelBox {
  return { partial, waiting: new Map(), claimed: new Map(), sent: new Map(), journal: [] };
}

/** The box as a full mailbox, created like the store does on deliver, keepSent and openBox. */
function fullBox(m: Model, who: Address): ModelBox {
  const box = m.boxes.get(who) ?? emptyBox(false);
  box.partial = false;
  m.boxes.set(who, box);
  return box;
}

/** The error a box operation must return when the model has no full mailbox for `who`. */
function missingBoxError(r: Real, who: Address): Partial<StoreError> {
  return who === runningName
    ? { kind: "not-a-folder", path: `${r.backend.root}/${who}` }
    : { kind: "io", code: "ENOENT" };
}

function expectClaimed(outcome: ClaimOutcome, name: string, path: string, sent: Envelope): void {
  expect(outcome).toMatchObject({ kind: "claimed", name, path });
  if (outcome.kind !== "claimed") return;
  expect(outcome.envelope).toEqual(sent);
}

/** One box as its reader sees it: new/, the claim journal, and no leftover in tmp/. */
function verifyBox(m: Model, r: Real, who: Address): void {
  const box = m.boxes.get(who);
  const listed = r.store.listNew(who);
  if (box === undefined || box.partial) expect(listed._unsafeUnwrapErr()).toMatchObject(missingBoxError(r, who));
  else
    expect(listed._unsafeUnwrap()).toEqual({
      names: sorted(box.waiting.keys()),
      hidden: [],
      hiddenCount: 0,
      truncated: false,
    });
  const journal = r.store.readClaimJournal(who);
  if (who === runningName) expect(journal._unsafeUnwrapErr().kind).toBe("not-a-folder");
  else expect(journal._unsafeUnwrap()).toEqual({ names: box?.journal ?? [], damaged: undefined });
  if (box !== undefined) expect(r.backend.raw.list(`${r.backend.root}/${who}/tmp`)).toEqual([]);
}

/** Every running record, read one by one and listed, and no leftover temp file in running/. */
function verifyRecords(m: Model, r: Real): void {
  for (const who of addresses) expect(r.store.readRunning(who)._unsafeUnwrap()).toBe(m.running.get(who));
  const records = sorted([...m.running.keys()].map((who) => `${who}.json`));
  const listed = r.store.listRunning()._unsafeUnwrap();
  expect(listed.map((entry) => `${entry.address}.json`)).toEqual(records);
  expect(listed.map((entry) => entry.text)).toEqual(listed.map((entry) => m.running.get(entry.address)));
  if (m.running.size > 0) expect(r.backend.raw.list(`${r.backend.root}/running`)).toEqual(records);
}

/** The facts pruning reads: which address folders exist and whether mail waits in each (new/ counts
 * once however full: only the first entry is read). */
function verifyFacts(m: Model, r: Real): void {
  const facts = r.store.listBoxes()._unsafeUnwrap();
  expect(facts.map(({ address, waiting }) => ({ address, waiting }))).toEqual(
    sorted(m.boxes.keys()).map((who) => {
      const box = m.boxes.get(who as Address)!;
      return { address: who, waiting: Math.min(1, box.waiting.size) + box.journal.length };
    }),
  );
}

function verifyAll(m: Model, r: Real): void {
  for (const who of addresses) verifyBox(m, r, who);
  verifyRecords(m, r);
  verifyFacts(m, r);
}

/** What a command can change, and so what is compared with the model right after it. Everything is
 * compared once more at the end of every run (verifyAll), which catches a command that changed more. */
type Changes = { boxes: readonly Address[] } | "records" | "nothing";

function command(
  label: string,
  changes: Changes,
  run: (m: Model, r: Real) => void,
  check: (m: Readonly<Model>) => boolean = () => true,
): Cmd {
  return {
    check,
    run: (m, r) => {
      run(m, r);
      if (changes === "records") verifyRecords(m, r);
      if (typeof changes === "object") {
        for (const who of changes.boxes) verifyBox(m, r, who);
        verifyFacts(m, r);
      }
    },
    toString: () => label,
  };
}

const addressArb = fc.constantFrom(...addresses);
// Lone surrogates included: JSON.stringify escapes them, so they survive the file as they are.
const textArb = fc.string({
  unit: fc.oneof(fc.constantFrom("\ud800", "\udfff", "\n", "\u2028"), fc.string({ unit: "binary", maxLength: 1 })),
  maxLength: 30,
});
const draftArb = fc
  .record({
    from: addressArb,
    to: addressArb,
    kind: fc.constantFrom("request", "ask", "message", "reply") satisfies fc.Arbitrary<Envelope["kind"]>,
    replyStatus: fc.constantFrom("done", "stopped", "failed") satisfies fc.Arbitrary<Envelope["status"]>,
    hops: fc.nat({ max: 5 }),
    inReplyTo: fc.array(fc.constantFrom("r-1", "r-2"), { maxLength: 2 }),
    body: textArb,
    // Few distinct send times, so names sort by time first and by id among equal times.
    sentAtMs: fc.constantFrom(baseMs, baseMs + 1, baseMs + 1_000),
    durable: fc.boolean(),
  })
  .map((d) => ({ ...d, status: d.kind === "reply" ? d.replyStatus : ("" as const) }));
type Draft = typeof draftArb extends fc.Arbitrary<infer T> ? T : never;

function envelopeOf(m: Model, d: Draft): Envelope {
  const id = `m${m.nextId++}`;
  const { from, to, kind, status, hops, inReplyTo, body } = d;
  return { id, from, to, kind, status, hops, in_reply_to: inReplyTo, ts: "2026-01-01T00:00:00.000Z", body };
}

const describeDraft = (d: Draft) =>
  `${d.kind} ${d.from.slice(0, 4)}→${d.to.slice(0, 4)} at +${d.sentAtMs - baseMs} ${JSON.stringify(d.body)}`;

const deliverArb = draftArb.map((d) =>
  command(`deliver(${describeDraft(d)}, durable=${d.durable})`, { boxes: [d.to] }, (m, r) => {
    const sent = envelopeOf(m, d);
    const result = r.store.deliver(sent, d.sentAtMs, { durable: d.durable });
    if (d.to === runningName) return expect(result._unsafeUnwrapErr().kind).toBe("not-a-folder");
    const name = envelopeFileName(d.sentAtMs, sent.id);
    expect(result._unsafeUnwrap()).toEqual({ path: `${r.backend.root}/${d.to}/new/${name}` });
    fullBox(m, d.to).waiting.set(name, sent);
  }),
);

const keepSentArb = draftArb.map((d) =>
  command(`keepSent(${describeDraft(d)})`, { boxes: [d.from] }, (m, r) => {
    const sent = envelopeOf(m, d);
    const result = r.store.keepSent(sent, d.sentAtMs);
    if (d.from === runningName) return expect(result._unsafeUnwrapErr().kind).toBe("not-a-folder");
    const name = envelopeFileName(d.sentAtMs, sent.id);
    expect(result._unsafeUnwrap()).toEqual({ path: `${r.backend.root}/${d.from}/sent/${name}` });
    fullBox(m, d.from).sent.set(name, sent);
  }),
);

const openBoxArb = addressArb.map((who) =>
  command(`openBox(${who})`, { boxes: [who] }, (m, r) => {
    const opened = r.store.openBox(who);
    if (who === runningName) return expect(opened._unsafeUnwrapErr().kind).toBe("not-a-folder");
    expect(opened._unsafeUnwrap()).toEqual({ path: `${r.backend.root}/${who}`, openToOthers: false });
    fullBox(m, who);
  }),
);

/** Claims `name` (a waiting one picked by index, or one never delivered) `times` times. */
const claimArb = fc
  .record({ who: addressArb, index: fc.nat(), listed: fc.boolean(), times: fc.constantFrom(1, 2) })
  .map(({ who, index, listed, times }) =>
    command(
      `claim(${who}, ${listed ? `waiting #${index}` : "never delivered"}) ×${times}`,
      { boxes: [who] },
      (m, r) => {
        const box = m.boxes.get(who);
        const name =
          (listed ? pick(sorted(box?.waiting.keys() ?? []), index) : undefined) ?? `${baseMs}-zz${index}.json`;
        for (let attempt = 0; attempt < times; attempt++) {
          const outcome = r.store.claim(who, name);
          if (box === undefined || box.partial) {
            expect(outcome._unsafeUnwrapErr()).toMatchObject(missingBoxError(r, who));
            continue;
          }
          const sent = box.waiting.get(name);
          if (sent === undefined) {
            expect(outcome._unsafeUnwrap()).toEqual({ kind: "gone", name });
            continue;
          }
          expectClaimed(outcome._unsafeUnwrap(), name, `${r.backend.root}/${who}/cur/${name}`, sent);
          box.waiting.delete(name);
          box.claimed.set(name, sent);
        }
      },
    ),
  );

const readCurArb = fc
  .record({ who: addressArb, index: fc.nat(), claimed: fc.boolean() })
  .map(({ who, index, claimed }) =>
    command(`readCur(${who}, ${claimed ? `claimed #${index}` : "unclaimed"})`, "nothing", (m, r) => {
      const box = m.boxes.get(who);
      const unclaimed = pick(sorted(box?.waiting.keys() ?? []), index) ?? `${baseMs}-zz${index}.json`;
      const name = (claimed ? pick(sorted(box?.claimed.keys() ?? []), index) : undefined) ?? unclaimed;
      const outcome = r.store.readCur(who, name);
      if (box === undefined || box.partial)
        return expect(outcome._unsafeUnwrapErr()).toMatchObject(missingBoxError(r, who));
      const sent = box.claimed.get(name);
      if (sent === undefined) return expect(outcome._unsafeUnwrap()).toEqual({ kind: "gone", name });
      expectClaimed(outcome._unsafeUnwrap(), name, `${r.backend.root}/${who}/cur/${name}`, sent);
    }),
  );

const findSentArb = fc
  .record({ who: addressArb, picks: fc.array(fc.nat(), { maxLength: 3 }), unknown: fc.boolean() })
  .map(({ who, picks, unknown }) =>
    command(
      `findSentCopies(${who}, kept #${picks.join(",")}${unknown ? " and an unknown id" : ""})`,
      "nothing",
      (m, r) => {
        const copies = [...(m.boxes.get(who)?.sent.entries() ?? [])];
        const chosen = picks.flatMap((index) => {
          const copy = pick(copies, index);
          return copy === undefined ? [] : [copy];
        });
        const ids = [...chosen.map(([, sent]) => sent.id), ...(unknown ? ["zz-unknown"] : [])];
        const found = r.store.findSentCopies(who, ids);
        if (who === runningName && ids.length > 0) return expect(found._unsafeUnwrapErr().kind).toBe("not-a-folder");
        const path = (name: string) => `${r.backend.root}/${who}/sent/${name}`;
        expect(found._unsafeUnwrap()).toEqual(
          new Map(chosen.map(([name, sent]) => [sent.id, { path: path(name), envelope: sent }])),
        );
      },
    ),
  );

const runningTextArb = fc.string({ unit: "binary", maxLength: 40 });

const writeRunningArb = fc.record({ who: addressArb, text: runningTextArb }).map(({ who, text }) =>
  command(`writeRunning(${who}, ${JSON.stringify(text)})`, "records", (m, r) => {
    expect(r.store.writeRunning(who, text).isOk()).toBe(true);
    m.running.set(who, text);
  }),
);

const removeRunningArb = fc
  .record({ who: addressArb, expected: fc.constantFrom("none", "current", "stale") })
  .map(({ who, expected }) =>
    command(`removeRunning(${who}, ${expected} text)`, "records", (m, r) => {
      const current = m.running.get(who);
      const text = expected === "none" ? undefined : expected === "current" ? (current ?? "{}") : `${current ?? ""}~`;
      expect(r.store.removeRunning(who, text).isOk()).toBe(true);
      if (text === undefined || text === current) m.running.delete(who);
    }),
  );

const writeJournalArb = fc
  .record({ who: addressArb, indexes: fc.array(fc.nat(), { maxLength: 3 }), unknown: fc.boolean() })
  .map(({ who, indexes, unknown }) =>
    command(
      `writeClaimJournal(${who}, waiting ${JSON.stringify(indexes)}${unknown ? " + unknown" : ""})`,
      { boxes: [who] },
      (m, r) => {
        const waiting = sorted(m.boxes.get(who)?.waiting.keys() ?? []);
        const names = indexes.flatMap((i) => pick(waiting, i) ?? []);
        if (unknown) names.push(`${baseMs}-zz.json`);
        const result = r.store.writeClaimJournal(who, names);
        if (names.length === 0) {
          expect(result.isOk()).toBe(true);
          const box = m.boxes.get(who);
          if (box !== undefined) box.journal = [];
          return;
        }
        if (who === runningName) return expect(result._unsafeUnwrapErr().kind).toBe("not-a-folder");
        expect(result.isOk()).toBe(true);
        const box = m.boxes.get(who) ?? emptyBox(true);
        box.journal = names;
        m.boxes.set(who, box);
      },
    ),
  );

/** Only a box with nothing waiting, as pruning would pick it; everything in it goes. */
const removeBoxArb = fc.nat().map((index) => {
  const idle = (m: Readonly<Model>) =>
    sorted(m.boxes.keys()).filter((who) => {
      const box = m.boxes.get(who as Address)!;
      return box.waiting.size === 0 && box.journal.length === 0;
    }) as Address[];
  return command(
    `removeBox(idle #${index})`,
    { boxes: addresses },
    (m, r) => {
      const who = pick(idle(m), index)!;
      expect(r.store.removeBox(who, undefined).isOk()).toBe(true);
      expect(r.backend.raw.exists(`${r.backend.root}/${who}`)).toBe(false);
      m.boxes.delete(who);
    },
    (m) => idle(m).length > 0,
  );
});

const commandsArb = fc.commands(
  [
    deliverArb,
    deliverArb,
    keepSentArb,
    openBoxArb,
    claimArb,
    claimArb,
    readCurArb,
    findSentArb,
    writeRunningArb,
    removeRunningArb,
    writeJournalArb,
    removeBoxArb,
  ],
  { maxCommands: 40, size: "max" },
);

describe.each([
  { name: "memfs", make: memoryBackend, numRuns: 100 },
  { name: "node fs", make: nodeBackend, numRuns: 30 },
])("fs mail store on $name against a model of its boxes", ({ make, numRuns }) => {
  it("after every command, new/, cur/, sent/, journals, running records and box facts equal the model", () => {
    fc.assert(
      fc.property(commandsArb, (commands) => {
        const backend = make();
        try {
          const store = createFsMailStore({ fs: backend.fs, root: backend.root, uid: backend.uid });
          expect(store.openRoot().isOk()).toBe(true);
          const model: Model = { boxes: new Map(), running: new Map(), nextId: 0 };
          const real: Real = { store, backend };
          fc.modelRun(() => ({ model, real }), commands);
          verifyAll(model, real);
        } finally {
          backend.cleanup();
        }
      }),
      { numRuns },
    );
  });
});
