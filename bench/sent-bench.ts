// The sent-copy lookup of a reply: one reply naming the most requests a reply may name, against a
// sent/ holding as many copies as one listing is bounded to, beside the floor of listing sent/ once.

import { readdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Address } from "../src/domain/mail/address.js";
import { type Envelope, encodeEnvelope, envelopeFileName } from "../src/domain/mail/envelope.js";
import { folderEntriesMax, inReplyToMax } from "../src/domain/mail/limits.js";
import { alternate, freshRoot, startEngine } from "./fs-bench.js";
import { median, nowUs } from "./stats.js";

export interface SentLookupFigures {
  /** Copies in sent/, and the ids the reply names (spread evenly among them). */
  copies: number;
  ids: number;
  /** The engine claiming and delivering the reply, quotes included (median ms). */
  oursMs: number;
  /** One readdirSync of sent/ (median ms). */
  floorMs: number;
}

const self = "019ad0e0-0000-7000-8000-0000000000bb" as Address;
const peer = "019ad0e0-0000-7000-8000-0000000000aa" as Address;
const idle = () => new Promise<void>((resolve) => setImmediate(resolve));

function mail(id: string, fields: Partial<Envelope>): Envelope {
  return {
    id,
    from: self,
    to: peer,
    kind: "request",
    hops: 0,
    in_reply_to: [],
    status: "",
    ts: new Date().toISOString(),
    body: `Please look at item ${id}.`,
    ...fields,
  };
}

/** `rounds` replies, each naming `inReplyToMax` of the `folderEntriesMax` copies in sent/. */
export async function benchSentLookup(rounds: number): Promise<SentLookupFigures> {
  const root = freshRoot("sent");
  const box = join(root, self);
  const engine = startEngine(root, self, { watch: false, pollMs: 3_600_000 });
  let quoted = -1;
  engine.onInbound((inbound) => {
    quoted = inbound.requests.length;
  });
  await idle();
  const baseMs = Date.now() - folderEntriesMax;
  const ids: string[] = [];
  const stride = Math.floor(folderEntriesMax / inReplyToMax);
  for (let i = 0; i < folderEntriesMax; i++) {
    const id = `019ad0e0-0000-7000-9000-${String(i).padStart(12, "0")}`;
    if (i % stride === stride - 1 && ids.length < inReplyToMax) ids.push(id);
    writeFileSync(join(box, "sent", envelopeFileName(baseMs + i, id)), encodeEnvelope(mail(id, {})), { mode: 0o600 });
  }
  const floor: number[] = [];
  const ours: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const reply = mail(`reply-${r}`, { from: peer, to: self, kind: "reply", status: "done", in_reply_to: ids });
    const name = envelopeFileName(Date.now(), reply.id);
    writeFileSync(join(box, "tmp", name), encodeEnvelope(reply), { mode: 0o600 });
    renameSync(join(box, "tmp", name), join(box, "new", name));
    const runFloor = () => {
      const t0 = nowUs();
      readdirSync(join(box, "sent"));
      floor.push((nowUs() - t0) / 1000);
    };
    const runOurs = () => {
      quoted = -1;
      const t0 = nowUs();
      engine.scan();
      ours.push((nowUs() - t0) / 1000);
      if (quoted !== ids.length) throw new Error(`the reply quoted ${quoted} of ${ids.length} requests`);
    };
    alternate(r, runFloor, runOurs);
    await idle();
  }
  engine.shutdown();
  return { copies: folderEntriesMax, ids: ids.length, oursMs: median(ours), floorMs: median(floor) };
}
