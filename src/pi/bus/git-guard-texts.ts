// What the model reads when the git guard stops a command, and what the person reads when it could
// not check one: what was stopped, whose work it protects (label and short id), what to run instead,
// in two lines worded so the same command is not tried again.
import { describeBusError } from "../../domain/bus/bus-errors.js";
import type { Holder } from "../../domain/bus/claim-rules.js";
import type { PeerClaim } from "../../domain/bus/engine/index.js";
import type { GitRefusal, TouchKind, Unchecked } from "../../domain/bus/git-guard/judge.js";
import { shownPaths } from "../../domain/bus/inbox-read.js";
import { labelCharsMax, pathShownCharsMax, pathsShownMax } from "../../domain/bus/limits.js";
import { sanitizeField } from "../../domain/shared/text/sanitize.js";
import type { ShortIds } from "./short-ids.js";

const noRetry = "Nothing was run. Do not retry this command:";

export function gitRefusal(refusal: GitRefusal, shortIds: ShortIds): string {
  switch (refusal.kind) {
    case "foreign-entry": {
      const owner = holderText(refusal.owner, shortIds);
      return [
        `Blocked: stash@{${refusal.index}} was pushed by ${owner}, and a session never pops, applies or drops another session's stash entry.`,
        `${noRetry} your own entries carry your session id in \`git stash list\`, and a bare \`git stash ${refusal.verb}\` takes your newest.`,
      ].join("\n");
    }
    case "no-own-entry":
      return [
        `Blocked: this session has no stash entry, and \`git stash ${refusal.verb}\` would take stash@{0}, pushed by ${holderText(refusal.owner, shortIds)}.`,
        `${noRetry} a session takes back only the stash entries it pushed; leave that one to its session.`,
      ].join("\n");
    case "name-own-entry":
      return [
        `Blocked: \`git stash ${refusal.verb}\` would take stash@{0}, which this session did not push; its newest entry is stash@{${refusal.index}}.`,
        `${noRetry} run \`git stash ${refusal.verb} stash@{${refusal.index}}\` as a command of its own.`,
      ].join("\n");
    case "clear": {
      const live = refusal.live.slice(0, pathsShownMax).map((h) => holderText(h, shortIds));
      const more = refusal.live.length - live.length;
      return [
        `Blocked: \`git stash clear\` deletes every session's stash entries, and ${live.join(", ")}${more > 0 ? ` and ${more} more` : ""} ${refusal.live.length === 1 ? "is" : "are"} live on this repository.`,
        `${noRetry} drop only your own entries, each with \`git stash drop stash@{n}\` (yours carry your session id in \`git stash list\`).`,
      ].join("\n");
    }
    case "touches-claims":
      return touchText(refusal.touch, refusal.command, refusal.touched, shortIds);
    default: {
      const never: never = refusal;
      return never;
    }
  }
}

const touchVerbs: Record<TouchKind, string> = {
  discard: "discard the changes to",
  clean: "delete",
  switch: "change",
  stage: "stage",
  commit: "commit",
  stash: "stash away the changes to",
};

const insteadOf: Record<TouchKind, string> = {
  discard: "restore only your own files (`git restore <your paths>`)",
  clean: "clean only your own files (`git clean -f <your paths>`)",
  switch: "leave this worktree on its commit, or work in a worktree of your own (`git worktree add <folder> <branch>`)",
  stage: "stage your own files by name (`git add <your paths>`)",
  commit: "stage your own files by name (`git add <your paths>`) and commit without -a or paths",
  stash: "stash only your own files (`git stash push -- <your paths>`)",
};

function touchText(touch: TouchKind, command: string, touched: readonly PeerClaim[], shortIds: ShortIds): string {
  const byHolder = new Map<string, { holder: Holder; keys: string[] }>();
  for (const claim of touched) {
    const entry = byHolder.get(claim.holder.id) ?? { holder: claim.holder, keys: [] };
    entry.keys.push(claim.key);
    byHolder.set(claim.holder.id, entry);
  }
  const holders = [...byHolder.values()];
  const whose = holders.map(
    ({ holder, keys }) => `${shownPaths(keys.sort())} (claimed by ${holderText(holder, shortIds)})`,
  );
  const first = sanitizeField(holders[0]?.holder.label ?? "", labelCharsMax);
  return [
    `Blocked: \`${sanitizeField(command, pathShownCharsMax)}\` would ${touchVerbs[touch]} ${whose.join(", ")} in this worktree, where a live session is working.`,
    `${noRetry} ${insteadOf[touch]}, or ask ${first} with the session tool (action "send", to "${first}").`,
  ].join("\n");
}

function holderText(holder: Holder, shortIds: ShortIds): string {
  const id = shortIds.among([holder.id])(holder.id);
  return `${sanitizeField(holder.label, labelCharsMax)} (session ${sanitizeField(id, labelCharsMax)})`;
}

/** The person's one warning when a check could not be made and the command ran unchecked. */
export function gitUncheckedText(why: Unchecked): string {
  const reason =
    why.kind === "git" ? `${sanitizeField(why.error.message, pathShownCharsMax)}.` : describeBusError(why.error);
  return `A git command ran without the git guard's check (claims and stash owners): ${reason} Git commands run unchecked while this lasts.`;
}

export function gitTooLongText(charsMax: number): string {
  return `A bash command longer than ${charsMax.toLocaleString("en-US")} characters ran without the git guard's check (claims and stash owners); each such command runs unchecked.`;
}
