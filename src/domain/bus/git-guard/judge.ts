// The verdict on one `bash` command's git invocations, in order: the first refusal blocks the whole
// command; otherwise the edits (a stash push tagged, a bare pop pointed at this session's newest
// entry) are written back into it. Facts come through ports; a fact that cannot be read lets its
// check through and is reported, so the guard never blocks on its own fault.
import type { Result } from "neverthrow";
import type { GitFactError, GitFacts } from "../../../ports/bus/git-facts.js";
import type { BusError } from "../bus-errors.js";
import type { Holder } from "../claim-rules.js";
import type { PeerClaim } from "../engine/index.js";
import { gitCallsCheckedMax } from "../limits.js";
import { joinLexical } from "../posix-path.js";
import { type OutWord, quoteWord, type TokenEdit } from "./command-text.js";
import { type GitAction, readGit, type Scope, type TagPlace } from "./git-command.js";
import type { CommandReading, GitCall } from "./shell-reading.js";
import {
  judgeClear,
  judgeTake,
  ownSearch,
  type StashRefusal,
  type StashSelf,
  stashTag,
  taggedMessage,
} from "./stash-rules.js";
import { reachedClaims, scopeKeys, touchedClaims } from "./touch-rules.js";

export interface GuardPorts {
  facts: GitFacts;
  /** Live peers' claims; undefined where this session has no bus (nothing can be claimed). */
  peerClaims(): Result<PeerClaim[], BusError> | undefined;
  /** The other live sessions on the bus; undefined without a bus. */
  liveOthers(): Result<Holder[], BusError> | undefined;
}

export type TouchKind = "discard" | "clean" | "switch" | "stage" | "commit" | "stash";

export type GitRefusal =
  | StashRefusal
  /** `command` (the git words as written) would change files of `touched`, claims of live peers. */
  | { kind: "touches-claims"; touch: TouchKind; command: string; touched: PeerClaim[] };

export type Unchecked = { kind: "git"; error: GitFactError } | { kind: "bus"; error: BusError };

interface CommandVerdict {
  refusal: GitRefusal | undefined;
  edits: TokenEdit[];
  unchecked: Unchecked[];
}

type Outcome =
  | { kind: "allow" }
  /** `why`: a check of the same call that could not be made (the edit still stands). */
  | { kind: "edit"; edits: TokenEdit[]; why?: Unchecked }
  | { kind: "block"; refusal: GitRefusal }
  | { kind: "unchecked"; why: Unchecked };

const allow: Outcome = { kind: "allow" };

interface Judging {
  call: GitCall;
  dir: string;
  self: StashSelf;
  ports: GuardPorts;
  pushedBefore: boolean;
  /** The git words as written, for a refusal to quote. */
  command: string;
  /** The words before the subcommand (`-C dir`), for a nested git call that must run where this one does. */
  globals: string[];
}

export async function judgeCommand(
  reading: CommandReading,
  self: StashSelf,
  ports: GuardPorts,
): Promise<CommandVerdict> {
  const verdict: CommandVerdict = { refusal: undefined, edits: [], unchecked: [] };
  let pushedBefore = false;
  for (const call of reading.calls.slice(0, gitCallsCheckedMax)) {
    const git = readGit(call.args);
    const dir =
      call.dir === undefined ? undefined : git.dirs.reduce((at, to) => joinLexical(at, to.split("/")), call.dir);
    if (call.retargeted || git.retargeted || dir === undefined || git.action.kind === "other") continue;
    const command = ["git", ...call.args.map((word) => word ?? "…")].join(" ");
    const globals = call.args.slice(0, git.at).map((word) => word ?? "");
    const outcome = await judgeAction(git.action, { call, dir, self, ports, pushedBefore, command, globals });
    if (git.action.kind === "stash-push") pushedBefore = true;
    if (outcome.kind === "block") return { ...verdict, refusal: outcome.refusal };
    if (outcome.kind === "edit") verdict.edits.push(...outcome.edits);
    if (outcome.kind === "edit" && outcome.why !== undefined) verdict.unchecked.push(outcome.why);
    if (outcome.kind === "unchecked") verdict.unchecked.push(outcome.why);
  }
  return verdict;
}

async function judgeAction(action: GitAction, j: Judging): Promise<Outcome> {
  switch (action.kind) {
    case "other":
      return allow;
    case "stash-push": {
      const touched = await touchCheck(j, "stash", action.scope, { tracked: true, untracked: action.untracked });
      if (touched.kind === "block") return touched;
      const tagged = tagEdit(action.tag, j);
      if (touched.kind !== "unchecked") return tagged;
      return tagged.kind === "edit" ? { ...tagged, why: touched.why } : touched;
    }
    case "stash-take": {
      const subjects = await j.ports.facts.stashSubjects(j.dir);
      if (subjects.isErr()) return { kind: "unchecked", why: { kind: "git", error: subjects.error } };
      const rewritable = j.call.at !== undefined && stashTag(j.self) !== undefined;
      const facts = { subjects: subjects.value, pushedBefore: j.pushedBefore, rewritable };
      const judged = judgeTake(action.verb, action.ref, j.self, facts);
      if (judged.kind === "block") return judged;
      return judged.kind === "allow" ? allow : ownNewestEdit(j);
    }
    case "stash-clear": {
      const live = j.ports.liveOthers();
      if (live === undefined) return allow;
      if (live.isErr()) return busUnchecked(live.error);
      const judged = judgeClear(live.value);
      return judged.kind === "block" ? judged : allow;
    }
    case "discard":
      return touchCheck(j, "discard", action.scope, { tracked: true }, revision(action.source));
    case "checkout":
      return judgeCheckout(action, j);
    case "switch":
      return touchCheck(j, "switch", { kind: "all" }, { tracked: action.force }, action.target);
    case "clean":
      return touchCheck(j, "clean", action.scope, {
        untracked: action.ignored !== "only",
        ignored: action.ignored !== "no",
      });
    case "stage":
      return touchCheck(j, action.command === "commit" ? "commit" : "stage", action.scope, {
        tracked: true,
        untracked: action.untracked,
      });
    default: {
      const never: never = action;
      return never;
    }
  }
}

/** The commit a discard restores from when it is not the index or HEAD (whose content the local
 * changes are measured against already). */
const revision = (source: string) => (source === "index" || source === "HEAD" ? undefined : source);

async function judgeCheckout(action: Extract<GitAction, { kind: "checkout" }>, j: Judging): Promise<Outcome> {
  if (action.first.startsWith("-")) return allow;
  const commit = await j.ports.facts.isCommit(j.dir, action.first);
  if (commit.isErr()) return { kind: "unchecked", why: { kind: "git", error: commit.error } };
  if (commit.value && action.rest.length === 0) {
    return touchCheck(j, "switch", { kind: "all" }, { tracked: action.force }, action.first);
  }
  const scope: Scope = { kind: "paths", specs: commit.value ? action.rest : [action.first, ...action.rest] };
  return touchCheck(j, "discard", scope, { tracked: true }, commit.value ? action.first : undefined);
}

interface Wanted {
  tracked?: boolean;
  untracked?: boolean;
  ignored?: boolean;
}

async function touchCheck(j: Judging, touch: TouchKind, scope: Scope, want: Wanted, target?: string): Promise<Outcome> {
  const claims = j.ports.peerClaims();
  if (claims === undefined) return allow;
  if (claims.isErr()) return busUnchecked(claims.error);
  if (claims.value.length === 0 || target?.startsWith("-")) return allow;
  const place = await j.ports.facts.worktree(j.dir);
  if (place.isErr()) return { kind: "unchecked", why: { kind: "git", error: place.error } };
  const keys = place.value === undefined ? undefined : scopeKeys(scope, place.value);
  if (place.value === undefined || keys === undefined) return allow;
  const { top } = place.value;
  const reached = reachedClaims(keys, claims.value, top);
  if (reached.claims.length === 0) return allow;
  const changed: string[] = [];
  if (want.tracked || want.untracked || want.ignored) {
    const include = { untracked: want.untracked === true, ignored: want.ignored === true };
    const listed = await j.ports.facts.changed(top, reached.paths, include);
    if (listed.isErr()) return { kind: "unchecked", why: { kind: "git", error: listed.error } };
    for (const entry of listed.value) if (want[entry.state] === true) changed.push(entry.path);
  }
  if (target !== undefined) {
    // A name git does not resolve (a branch a switch would make from a remote one, a typo) is
    // left to git: the guard does not guess what it would check out.
    const resolved = await j.ports.facts.isCommit(j.dir, target);
    if (resolved.isErr()) return { kind: "unchecked", why: { kind: "git", error: resolved.error } };
    if (!resolved.value) return allow;
    const differing = await j.ports.facts.differs(top, "HEAD", target, reached.paths);
    if (differing.isErr()) return { kind: "unchecked", why: { kind: "git", error: differing.error } };
    changed.push(...differing.value);
  }
  const touched = touchedClaims(reached.claims, changed);
  if (touched.length === 0) return allow;
  return { kind: "block", refusal: { kind: "touches-claims", touch, command: j.command, touched } };
}

function busUnchecked(error: BusError): Outcome {
  // No session yet is not a fault: there is nothing of this session's to check against.
  return error.kind === "not-started" ? allow : { kind: "unchecked", why: { kind: "bus", error } };
}

function tagEdit(place: TagPlace | undefined, j: Judging): Outcome {
  const tag = stashTag(j.self);
  const at = j.call.at;
  if (place === undefined || tag === undefined || at === undefined) return allow;
  const message = taggedMessage(tag, j.self, place.text);
  if (place.kind === "replace") {
    const token = at.args[place.at] as number;
    return { kind: "edit", edits: [{ kind: "replace", token, words: [{ text: `${place.prefix}${message}` }] }] };
  }
  const words: OutWord[] = [...place.lead, message].map((text) => ({ text }));
  return { kind: "edit", edits: [{ kind: "insert", after: at.args[place.after] as number, words }] };
}

/** The bare verb given this session's newest entry, looked up when the command runs (an entry an
 * earlier push of the same command makes is not there yet, and a peer's push moves the numbers). */
function ownNewestEdit(j: Judging): Outcome {
  const at = j.call.at;
  if (at === undefined) return allow;
  const lookup = ["git", ...j.globals, "stash", "list", "--max-count=1", "--format=%gd", "--fixed-strings"];
  const raw = `"$(${[...lookup, `--grep=${ownSearch(j.self)}`].map(quoteWord).join(" ")})"`;
  const last = at.args[at.args.length - 1] as number;
  return { kind: "edit", edits: [{ kind: "insert", after: last, words: [{ raw }] }] };
}
