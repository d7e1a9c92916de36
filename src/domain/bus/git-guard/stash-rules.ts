// `refs/stash` is one stack for every worktree of a repository, so sessions side by side take each
// other's entries. Each guarded session's push carries a tag naming it (its session id, which a
// resume keeps, and its label for a person reading `git stash list`); a session takes back only its
// own entries and those no session tagged (a person's, or pushed before the guard), never another
// session's. A bare pop, apply or drop means this session's newest entry.
import { isBusId } from "../claim-key.js";
import type { Holder } from "../claim-rules.js";
import { isLabel } from "../labels.js";
import type { StashRef, StashVerb } from "./git-command.js";

const tagStart = "[pi-session ";

export interface StashSelf {
  id: string;
  label: string | undefined;
}

/** The tag of `self`'s pushes: `[pi-session <id> <label>]`, undefined for an id no tag can carry. */
export function stashTag(self: StashSelf): string | undefined {
  if (!isBusId(self.id)) return undefined;
  const label = self.label !== undefined && isLabel(self.label) ? ` ${self.label}` : "";
  return `${tagStart}${self.id}${label}]`;
}

/** `text` as `self`'s push message: the tag first (once), then the message the model gave. */
export function taggedMessage(tag: string, self: StashSelf, text: string): string {
  if (text.startsWith(`${tagStart}${self.id}`)) return text;
  return text === "" ? tag : `${tag} ${text}`;
}

/** What a search of the stash's messages for this session's entries looks for, as fixed text. */
export const ownSearch = (self: StashSelf) => `${tagStart}${self.id}`;

/** The session that pushed an entry, from its reflog subject (`On <branch>: <message>`; a branch
 * name holds no `:`), or undefined for an entry no session tagged. */
function stashOwner(subject: string): Holder | undefined {
  const colon = subject.indexOf(": ");
  const message = colon < 0 ? "" : subject.slice(colon + 2);
  if (!subject.startsWith("On ") || !message.startsWith(tagStart)) return undefined;
  const close = message.indexOf("]");
  if (close < 0) return undefined;
  const [id = "", label = ""] = message.slice(tagStart.length, close).split(" ");
  return isBusId(id) ? { id, label: label === "" ? id : label } : undefined;
}

type StashVerdict =
  | { kind: "allow" }
  /** The bare verb takes this session's newest entry, found when the command runs. */
  | { kind: "own-newest" }
  | { kind: "block"; refusal: StashRefusal };

export type StashRefusal =
  /** `index` is `owner`'s entry. */
  | { kind: "foreign-entry"; verb: StashVerb; index: number; owner: Holder }
  /** A bare verb would take `stash@{0}`, `owner`'s, and this session has none of its own. */
  | { kind: "no-own-entry"; verb: StashVerb; owner: Holder }
  /** A bare verb in a command that cannot be rewritten, where this session's newest is not first. */
  | { kind: "name-own-entry"; verb: StashVerb; index: number }
  | { kind: "clear"; live: Holder[] };

interface TakeFacts {
  /** The reflog subjects of the stash, newest (`stash@{0}`) first. */
  subjects: readonly string[];
  /** An earlier call of the same command pushes: its entry is the one a bare verb here means. */
  pushedBefore: boolean;
  /** The command can be written back with the entry named. */
  rewritable: boolean;
}

export function judgeTake(verb: StashVerb, ref: StashRef, self: StashSelf, facts: TakeFacts): StashVerdict {
  const owners = facts.subjects.map(stashOwner);
  if (ref.kind === "other") return { kind: "allow" };
  if (ref.kind === "index") {
    const owner = owners[ref.index];
    if (owner === undefined || owner.id === self.id) return { kind: "allow" };
    return { kind: "block", refusal: { kind: "foreign-entry", verb, index: ref.index, owner } };
  }
  const own = owners.findIndex((owner) => owner?.id === self.id);
  if (facts.pushedBefore) return facts.rewritable ? { kind: "own-newest" } : { kind: "allow" };
  if (own < 0) {
    const first = owners[0];
    if (first === undefined || first.id === self.id) return { kind: "allow" };
    return { kind: "block", refusal: { kind: "no-own-entry", verb, owner: first } };
  }
  if (facts.rewritable) return { kind: "own-newest" };
  return own === 0 ? { kind: "allow" } : { kind: "block", refusal: { kind: "name-own-entry", verb, index: own } };
}

/** `git stash clear` deletes every session's entries: refused while another session is live here. */
export function judgeClear(live: readonly Holder[]): StashVerdict {
  return live.length === 0 ? { kind: "allow" } : { kind: "block", refusal: { kind: "clear", live: [...live] } };
}
