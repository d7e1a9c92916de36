// What one git invocation would do to the state sessions share: its global options (where it runs)
// and, for the few subcommands that can hurt a peer, what they touch. Every other subcommand, and
// any form this reader is unsure of, is "other": it passes untouched.
import { given, optionValue, type Positional, type ScannedOptions, scanOptions } from "./git-options.js";
import type { Word } from "./shell-reading.js";

/** Which paths a command covers, relative to the folder git runs in. */
export type Scope = { kind: "all" } | { kind: "paths"; specs: Word[] };

export type StashRef = { kind: "bare" } | { kind: "index"; index: number } | { kind: "other" };

/** Where a push's message goes: a word replaced (its `prefix` kept, the message `text` tagged), or
 * words inserted after the word at `after` (`lead`, then the tagged message). */
export type TagPlace =
  | { kind: "replace"; at: number; prefix: string; text: string }
  | { kind: "insert"; after: number; lead: string[]; text: string };

export type StashVerb = "pop" | "apply" | "drop" | "branch";

export type GitAction =
  | { kind: "other" }
  /** `tag` undefined: the message is not known before the shell runs, so it cannot be tagged. */
  | { kind: "stash-push"; scope: Scope; untracked: boolean; tag: TagPlace | undefined }
  | { kind: "stash-take"; verb: StashVerb; ref: StashRef }
  | { kind: "stash-clear" }
  /** The working tree's changes in `scope` replaced from `source` (`index`, or a commit). */
  | { kind: "discard"; command: "reset --hard" | "checkout" | "restore"; source: string; scope: Scope }
  /** `git checkout <word> [paths]` without `--`: a branch switch when `first` names a commit. */
  | { kind: "checkout"; first: string; rest: Word[]; force: boolean }
  | { kind: "switch"; command: "switch" | "checkout"; target: string; force: boolean }
  | { kind: "clean"; scope: Scope; ignored: "no" | "also" | "only" }
  | { kind: "stage"; command: "add" | "commit"; scope: Scope; untracked: boolean };

interface GitInvocation {
  /** The `-C` folders, in order (each relative to the one before). */
  dirs: string[];
  /** `--git-dir`, `--work-tree`, `--bare`, or a `-C` the shell makes up: git works elsewhere. */
  retargeted: boolean;
  /** The index of the subcommand in the call's words. */
  at: number;
  action: GitAction;
}

const retargetingOptions = new Set(["--git-dir", "--work-tree", "--bare"]);
const globalValueOptions = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--attr-source"]);
const other: GitAction = { kind: "other" };

export function readGit(args: readonly Word[]): GitInvocation {
  const dirs: string[] = [];
  let retargeted = false;
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i];
    if (word === undefined || !word.startsWith("-")) break;
    const name = word.includes("=") ? word.slice(0, word.indexOf("=")) : word;
    if (retargetingOptions.has(name)) retargeted = true;
    if (!globalValueOptions.has(word)) continue;
    const value = args[++i];
    if (word === "-C") {
      if (value === undefined) retargeted = true;
      else dirs.push(value);
    }
  }
  const sub = args[i];
  return { dirs, retargeted, at: i, action: sub === undefined ? other : actionOf(sub, args, i) };
}

function actionOf(sub: string, args: readonly Word[], at: number): GitAction {
  switch (sub) {
    case "stash":
      return stashAction(args, at);
    case "reset":
      return resetAction(scanOptions(args, at + 1, {}));
    case "checkout":
      return checkoutAction(scanOptions(args, at + 1, { shortValue: "bB", longValue: ["--orphan"] }));
    case "restore":
      return restoreAction(scanOptions(args, at + 1, { shortValue: "s", longValue: ["--source"] }));
    case "switch":
      return switchAction(scanOptions(args, at + 1, { shortValue: "cC", longValue: ["--create", "--force-create"] }));
    case "clean":
      return cleanAction(scanOptions(args, at + 1, { shortValue: "e", longValue: ["--exclude"] }));
    case "add":
      return addAction(scanOptions(args, at + 1, { longValue: ["--chmod"] }));
    case "commit":
      return commitAction(scanOptions(args, at + 1, commitOptions));
    default:
      return other;
  }
}

const pathsOf = (positionals: readonly Positional[]): Scope =>
  positionals.length === 0 ? { kind: "all" } : { kind: "paths", specs: positionals.map((p) => p.word) };

/** Forms whose paths come from somewhere the words do not show, or that ask the person at the
 * terminal (which a model's shell cannot answer): read as other. */
const unsure = (scanned: ScannedOptions, ...letters: string[]) =>
  given(scanned, "--pathspec-from-file", "--patch", "--interactive", "--dry-run", ...letters);

function stashAction(args: readonly Word[], at: number): GitAction {
  const sub = args[at + 1];
  if (at + 1 >= args.length)
    return { kind: "stash-push", scope: { kind: "all" }, untracked: false, tag: insertTag(at) };
  if (sub === undefined) return other;
  if (sub.startsWith("-")) return stashPush(args, at + 1, at, ["push", "-m"]);
  switch (sub) {
    case "push":
      return stashPush(args, at + 2, at + 1, ["-m"]);
    case "save":
      return stashSave(args, at);
    case "pop":
    case "apply":
    case "drop":
    case "branch": {
      const scanned = scanOptions(args, at + 2, {});
      const ref = scanned.positionals[sub === "branch" ? 1 : 0];
      return { kind: "stash-take", verb: sub, ref: ref === undefined ? { kind: "bare" } : stashRef(ref.word) };
    }
    case "clear":
      return { kind: "stash-clear" };
    default:
      return other;
  }
}

const insertTag = (after: number, lead: string[] = ["push", "-m"]): TagPlace => ({
  kind: "insert",
  after,
  lead,
  text: "",
});

function stashPush(args: readonly Word[], from: number, after: number, lead: string[]): GitAction {
  const scanned = scanOptions(args, from, { shortValue: "m", longValue: ["--message"] });
  const untracked = given(scanned, "u", "a", "--include-untracked", "--all");
  const scope: Scope = given(scanned, "--pathspec-from-file")
    ? { kind: "paths", specs: [undefined] }
    : pathsOf(scanned.positionals);
  const message = optionValue(scanned, "m", "--message");
  let tag: TagPlace | undefined = insertTag(after, lead);
  if (message !== undefined) {
    tag =
      message.value === undefined
        ? undefined
        : { kind: "replace", at: message.at, prefix: message.prefix, text: message.value };
  }
  return { kind: "stash-push", scope, untracked, tag };
}

/** `git stash save [options] [message…]`: the old form, whose words after the options are the message. */
function stashSave(args: readonly Word[], at: number): GitAction {
  const scanned = scanOptions(args, at + 2, {});
  const untracked = given(scanned, "u", "a", "--include-untracked", "--all");
  const first = scanned.positionals[0];
  let tag: TagPlace | undefined = { kind: "insert", after: args.length - 1, lead: [], text: "" };
  if (first !== undefined) {
    tag = first.word === undefined ? undefined : { kind: "replace", at: first.at, prefix: "", text: first.word };
  }
  return { kind: "stash-push", scope: { kind: "all" }, untracked, tag };
}

function stashRef(word: Word): StashRef {
  if (word === undefined) return { kind: "other" };
  const braced = word.startsWith("stash@{") ? word.slice(6) : word.startsWith("refs/stash@{") ? word.slice(11) : "";
  const digits = braced === "" ? word : braced.startsWith("{") && braced.endsWith("}") ? braced.slice(1, -1) : "";
  return /^\d{1,9}$/.test(digits) ? { kind: "index", index: Number(digits) } : { kind: "other" };
}

function resetAction(scanned: ScannedOptions): GitAction {
  if (!given(scanned, "--hard") || scanned.positionals.length > 1) return other;
  const source = scanned.positionals.length === 0 ? "HEAD" : scanned.positionals[0]?.word;
  return source === undefined ? other : { kind: "discard", command: "reset --hard", source, scope: { kind: "all" } };
}

function checkoutAction(scanned: ScannedOptions): GitAction {
  if (unsure(scanned, "p")) return other;
  const force = given(scanned, "f", "--force");
  const { positionals, beforeDashDash } = scanned;
  if (beforeDashDash !== undefined) {
    const source = beforeDashDash === 0 ? "index" : positionals[0]?.word;
    const paths = positionals.slice(beforeDashDash);
    if (source === undefined || beforeDashDash > 1 || paths.length === 0) return other;
    return { kind: "discard", command: "checkout", source, scope: pathsOf(paths) };
  }
  const first = positionals[0]?.word;
  if (given(scanned, "b", "B", "--orphan")) {
    return first === undefined ? other : { kind: "switch", command: "checkout", target: first, force };
  }
  if (first === undefined) return other;
  if (given(scanned, "--detach")) return { kind: "switch", command: "checkout", target: first, force };
  return { kind: "checkout", first, rest: positionals.slice(1).map((p) => p.word), force };
}

function restoreAction(scanned: ScannedOptions): GitAction {
  if (unsure(scanned, "p")) return other;
  const staged = given(scanned, "S", "--staged");
  if (staged && !given(scanned, "W", "--worktree")) return other;
  const source = optionValue(scanned, "s", "--source")?.value ?? (staged ? "HEAD" : "index");
  if (source === undefined || scanned.positionals.length === 0) return other;
  return { kind: "discard", command: "restore", source, scope: pathsOf(scanned.positionals) };
}

function switchAction(scanned: ScannedOptions): GitAction {
  const force = given(scanned, "f", "--force", "--discard-changes");
  // With -c/-C the word is the new branch's start point; without one, nothing on disk changes.
  const target = scanned.positionals[0]?.word;
  if (target === undefined || given(scanned, "--orphan")) return other;
  return { kind: "switch", command: "switch", target: target === "-" ? "@{-1}" : target, force };
}

function cleanAction(scanned: ScannedOptions): GitAction {
  if (!given(scanned, "f", "--force") || unsure(scanned, "n", "i")) return other;
  const ignored = given(scanned, "x") ? "also" : given(scanned, "X") ? "only" : "no";
  // Without paths, clean works on the folder it runs in, not the whole tree.
  const scope: Scope =
    scanned.positionals.length === 0 ? { kind: "paths", specs: ["."] } : pathsOf(scanned.positionals);
  return { kind: "clean", scope, ignored };
}

function addAction(scanned: ScannedOptions): GitAction {
  if (unsure(scanned, "n", "i", "p", "e", "--edit", "--refresh")) return other;
  const all = given(scanned, "A", "--all", "--no-ignore-removal");
  const update = given(scanned, "u", "--update");
  if (scanned.positionals.length === 0 && !all && !update) return other;
  return { kind: "stage", command: "add", scope: pathsOf(scanned.positionals), untracked: !update };
}

const commitOptions = {
  shortValue: "mFCct",
  shortOptional: "uS",
  longValue: [
    "--message",
    "--file",
    "--reuse-message",
    "--reedit-message",
    "--template",
    "--author",
    "--date",
    "--fixup",
    "--squash",
    "--cleanup",
    "--trailer",
  ],
};

function commitAction(scanned: ScannedOptions): GitAction {
  if (unsure(scanned, "p")) return other;
  if (!given(scanned, "a", "--all") && scanned.positionals.length === 0) return other;
  return { kind: "stage", command: "commit", scope: pathsOf(scanned.positionals), untracked: false };
}
