// Hostile specs turned into entries: a name, a content, and what the session must do with each
// (deliver once under a clean label, set aside in cur/, or leave a dot-file alone). `placeEntry`
// writes one to disk.
import * as fs from "node:fs";
import { join, relative } from "node:path";
import { decodeEnvelope } from "../../src/domain/mail/envelope.js";
import { expectedSender, peerAddress } from "./hostile-peers.js";
import {
  breakers,
  type HostileSpec,
  type LinkTo,
  type MailKind,
  type Named,
  type ReplyId,
  removed,
  type ValidSpec,
  valueWithText,
} from "./hostile-specs.js";
import { fileNamePart } from "./hostile-text.js";
import { envelopeJson, neverMarker, type World } from "./hostile-world.js";
import type { FramedExpectation } from "./label-checks.js";

export const envelopeFileBytesMax = 1024 * 1024;

export type Content =
  | { t: "file"; bytes: Uint8Array | string }
  | { t: "link"; target: string }
  | { t: "fifo" }
  | { t: "dir"; inner: ReadonlyArray<{ name: string; content: Content }> };

export interface Entry {
  name: string;
  /** Unique to this entry and part of its name: notices about it contain it. */
  token: string;
  content: Content;
  /** deliver: injected once; aside: moved to cur/ unread with one warning; hidden: a dot-file left in new/ with one warning. */
  outcome: "deliver" | "aside" | "hidden";
  why: string;
  framed: (FramedExpectation & { triggerTurn: boolean }) | undefined;
}

// ---- Materializing ----

const running = peerAddress("running");
const stamp = "000000000000001-";

function fields(world: World, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    id: "x",
    from: running,
    to: world.self,
    kind: "request",
    hops: 0,
    in_reply_to: [],
    status: "",
    ts: "t",
    body: "b",
    ...extra,
  };
}

/** An envelope whose file is exactly `bytes` long, padded in the body. */
function sized(world: World, id: string, bytes: number): string {
  const bare = envelopeJson({ id, from: running, to: world.self, body: neverMarker });
  return envelopeJson({ id, from: running, to: world.self, body: neverMarker + "z".repeat(bytes - bare.length) });
}

function linkTarget(world: World, to: LinkTo, name: string): string {
  const trap = (p: string) => join(world.trap, p);
  switch (to) {
    case "trap-file":
      return trap("envelope.json");
    case "trap-file-relative":
      return relative(world.newDir, trap("envelope.json"));
    case "trap-dir":
      return trap("dir");
    case "trap-fifo":
      return trap("fifo");
    case "dangling":
      return trap("missing");
    case "inside-file":
      return join(world.inside, "envelope.json");
    case "inside-file-relative":
      return relative(world.newDir, join(world.inside, "envelope.json"));
    case "inside-dir":
      return join(world.inside, "dir");
    case "own-sent":
      return world.sentDir;
    case "new-itself":
      return ".";
    case "loop":
      return name;
    case "dev-zero":
      return "/dev/zero";
    default: {
      const never: never = to;
      return never;
    }
  }
}

function hostileContent(world: World, spec: HostileSpec, name: string, n: number): Content {
  const file = (bytes: Uint8Array | string): Content => ({ t: "file", bytes });
  const valid = envelopeJson({ id: `bad-${n}`, from: running, to: world.self, body: neverMarker });
  switch (spec.t) {
    case "bytes":
      return file(spec.bytes);
    case "not-json":
      return file(spec.text);
    case "truncated":
      return file(valid.slice(0, Math.floor(spec.at * (valid.length - 1))));
    case "utf16":
      return file(Buffer.from(valid, "utf16le"));
    case "json":
      return file(JSON.stringify(spec.value) ?? "null");
    case "broken": {
      const e = fields(world, { id: `bad-${n}`, body: neverMarker });
      const [key, value] = breakers[spec.breaker] ?? ["id", removed];
      if (value === removed) delete e[key];
      else e[key] = value === valueWithText ? `a${spec.text}` : value;
      return file(JSON.stringify(e));
    }
    case "too-many-replies": {
      const ids = Array.from({ length: spec.count }, (_, i) => `r${i}`);
      return file(
        JSON.stringify(
          fields(world, { id: `bad-${n}`, kind: "reply", status: "done", in_reply_to: ids, body: neverMarker }),
        ),
      );
    }
    case "bad-address":
      return file(JSON.stringify(fields(world, { id: `bad-${n}`, [spec.field]: spec.value, body: neverMarker })));
    case "wrong-recipient":
      return file(JSON.stringify(fields(world, { id: `bad-${n}`, to: spec.to, body: neverMarker })));
    case "too-big":
      return file(sized(world, `bad-${n}`, envelopeFileBytesMax + spec.extra));
    case "link":
      return { t: "link", target: linkTarget(world, spec.to, name) };
    case "fifo":
      return { t: "fifo" };
    case "dir":
      return {
        t: "dir",
        inner: [
          { name: `${stamp}inner-${n}.json`, content: file(valid) },
          { name: "link", content: { t: "link", target: join(world.trap, "envelope.json") } },
          { name: "fifo", content: { t: "fifo" } },
        ],
      };
    case "dot":
      return dotContent(world, spec.inner, valid);
    default: {
      const never: never = spec;
      return never;
    }
  }
}

function dotContent(world: World, inner: "mail" | "link" | "dir" | "fifo" | "garbage", valid: string): Content {
  switch (inner) {
    case "mail":
      return { t: "file", bytes: valid };
    case "link":
      return { t: "link", target: join(world.trap, "envelope.json") };
    case "dir":
      return { t: "dir", inner: [{ name: "mail.json", content: { t: "file", bytes: valid } }] };
    case "fifo":
      return { t: "fifo" };
    case "garbage":
      return { t: "file", bytes: "\u0000\u0001not mail" };
    default: {
      const never: never = inner;
      return never;
    }
  }
}

export interface Batch {
  entries: Entry[];
  /** Copies in this session's sent/ that the replies name. */
  sent: Array<{ name: string; content: Content }>;
}

const tokenOf = (n: number) => `ENTRY${String(n).padStart(4, "0")}#`;

export type Planned = { valid: false; entry: Named<HostileSpec> } | { valid: true; entry: Named<ValidSpec> };

/** Valid mail spread among the hostile entries, so that it is claimed between them (names sort by token). */
export function interleave(hostile: readonly Named<HostileSpec>[], valid: readonly Named<ValidSpec>[]): Planned[] {
  const out: Planned[] = hostile.map((entry) => ({ valid: false, entry }));
  for (const [i, entry] of valid.entries()) {
    out.splice(Math.floor(((i + 1) * out.length) / (valid.length + 1)), 0, { valid: true, entry });
  }
  return out;
}

export function materialize(world: World, planned: readonly Planned[]): Batch {
  const batch: Batch = { entries: [], sent: [] };
  for (const [n, p] of planned.entries()) {
    batch.entries.push(p.valid ? validEntry(world, p.entry, n, batch) : hostileEntry(world, p.entry, n));
  }
  return batch;
}

function hostileEntry(world: World, { spec, suffix, ext }: Named<HostileSpec>, n: number): Entry {
  const token = tokenOf(n);
  const name = `${spec.t === "dot" ? "." : ""}${token}${suffix}${ext}`;
  const content = hostileContent(world, spec, name, n);
  return { name, token, content, outcome: spec.t === "dot" ? "hidden" : "aside", why: spec.t, framed: undefined };
}

function shownKind(spec: ValidSpec, idCount: number): MailKind {
  if (spec.kind.t === "known") return spec.kind.kind;
  if (spec.kind.t === "unknown") return "message";
  return idCount > 0 ? "reply" : "request";
}

function shownStatus(status: string | undefined): "done" | "stopped" | "failed" {
  if (status === undefined || status === "") return "done";
  return status === "done" || status === "stopped" ? status : "failed";
}

function validEntry(world: World, { spec, suffix, ext }: Named<ValidSpec>, n: number, batch: Batch): Entry {
  const token = tokenOf(n);
  const name = `${token}${suffix}${ext}`;
  const id = `mail-${n}`;
  const from = peerAddress(spec.peer);
  const replyIds = spec.fifty
    ? [...spec.replyTo, ...Array.from({ length: 50 - spec.replyTo.length }, () => ({ t: "none" as const, id: "" }))]
    : spec.replyTo;
  const kind = shownKind(spec, replyIds.length);
  // The tag keeps plain ids in the envelope id alphabet, so their copies decode.
  const ids = replyIds.map((r, j) => replyIdText(r, `-r${n}_${j}`));
  const quotes = kind === "reply" ? replyIds.map((r, j) => plantCopy(world, batch, r, ids[j] ?? "", n, j)) : [];
  const filler = spec.size === "cut" ? "z".repeat(33 * 1024) : "";
  const textWith = (body: string) =>
    envelopeText(
      [
        ["id", id],
        ["from", from],
        ["to", world.self],
        ["kind", spec.kind.t === "old" ? undefined : spec.kind.kind],
        ["hops", spec.kind.t === "old" ? undefined : spec.hops],
        ["in_reply_to", ids],
        ["status", spec.status],
        ["ts", spec.tsNumber ? 1_767_225_600_000 : spec.body],
        ["body", body],
      ],
      spec.extras,
      spec.bom,
    );
  let body = `${spec.body}${filler}${filler === "" ? "" : spec.body}`;
  let text = textWith(body);
  if (spec.size === "max") {
    // Exactly the largest file opened as mail: read, and its body cut at 32 KiB.
    body = `${spec.body}${"z".repeat(envelopeFileBytesMax - Buffer.byteLength(text))}`;
    text = textWith(body);
  }
  return {
    name,
    token,
    content: { t: "file", bytes: text },
    outcome: "deliver",
    why: `valid ${kind}`,
    framed: {
      id,
      from,
      kind,
      status: kind === "reply" ? shownStatus(spec.status) : undefined,
      body,
      cut: Buffer.byteLength(body) > 32 * 1024,
      quotes,
      sender: expectedSender(spec.peer),
      token,
      triggerTurn: kind !== "reply",
    },
  };
}

function replyIdText(r: ReplyId, tag: string): string {
  switch (r.t) {
    case "copy":
      return `copy${tag}`;
    case "hostile-copy":
      return `${r.id}${tag}`;
    case "link-copy":
      return `link${tag}`;
    case "fifo-copy":
      return `fifo${tag}`;
    case "none":
      return `${r.id}${tag}`;
    default: {
      const never: never = r;
      return never;
    }
  }
}

/** Plants the sent copy a reply names; true when the reply must quote it. A copy is found by the id
 * inside it, so it holds the id it is named for, and a hostile id counts only if envelopes accept it. */
function plantCopy(world: World, batch: Batch, r: ReplyId, id: string, n: number, j: number): boolean {
  const name = `${stamp}${id}.json`;
  const body = r.t === "copy" && r.long ? "q".repeat(3000) : `Asked ${n}/${j}.`;
  const copy = envelopeJson({ id, from: world.self, to: running, kind: "request", body });
  if (r.t === "link-copy") batch.sent.push({ name, content: { t: "link", target: join(world.trap, "envelope.json") } });
  if (r.t === "fifo-copy") batch.sent.push({ name, content: { t: "fifo" } });
  if (r.t !== "copy" && r.t !== "hostile-copy") return false;
  batch.sent.push({ name: fileNamePart(name, 250), content: { t: "file", bytes: copy } });
  return decodeEnvelope(copy).isOk();
}

// Decoys first: JSON.parse keeps the last of duplicate keys, so the real fields win; a reader that
// kept the first would show the marker. `__proto__` and `constructor` are own keys, never prototypes.
function envelopeText(record: ReadonlyArray<[string, unknown]>, extras: boolean, bom: boolean): string {
  const decoys = extras
    ? [
        `"__proto__":{"id":"evil","to":"someone-else"}`,
        `"constructor":{"prototype":{"polluted":true}}`,
        `"body":${JSON.stringify(`decoy ${neverMarker}`)}`,
        `"extra":${"[".repeat(2000)}${"]".repeat(2000)}`,
      ]
    : [];
  const parts = record.filter(([, v]) => v !== undefined).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  return `${bom ? "\ufeff" : ""}{${[...decoys, ...parts].join(",")}}`;
}

// ---- Writing ----

/** Writes one entry at `path`; FIFOs are collected for one mkfifo call. */
export function placeEntry(path: string, content: Content, fifos: string[]): void {
  switch (content.t) {
    case "file":
      fs.writeFileSync(path, content.bytes, { mode: 0o600, flag: "wx" });
      return;
    case "link":
      fs.symlinkSync(content.target, path);
      return;
    case "fifo":
      fifos.push(path);
      return;
    case "dir":
      fs.mkdirSync(path, { mode: 0o700 });
      for (const inner of content.inner) placeEntry(join(path, inner.name), inner.content, fifos);
      return;
    default: {
      const never: never = content;
      throw new Error(`unknown content ${JSON.stringify(never)}`);
    }
  }
}
