// How peers address a session: a short lower-case label, unique among live sessions (compared
// case-insensitively), derived from Pi's session name or the cwd unless one is asked for.
import { err, ok, type Result } from "neverthrow";
import { sameLabel } from "../shared/text/same-label.js";
import { uniquePrefixes } from "../shared/unique-prefix.js";
import { idShownCharsMin, labelCharsMax, labelSuffixHexMin } from "./limits.js";

const labelSyntax = new RegExp(`^[a-z0-9][a-z0-9._-]{0,${labelCharsMax - 1}}$`);
/** The label a session gets when neither its name nor its cwd leaves a usable character. */
export const fallbackLabel = "session";

export type LabelError =
  | { kind: "invalid-label"; label: string }
  /** A live session holds it as its label or its name; `holder` is that session's id and
   * `holderName` what it holds (the label is the one asked for). */
  | { kind: "label-taken"; label: string; holder: string; holderName?: string; holderPrefix?: string };

/** A live session's label or Pi name, as the uniqueness rule sees it (`name`: held as a name). */
export interface LabelHolder {
  id: string;
  label: string;
  name?: string;
}

export function isLabel(text: string): boolean {
  return labelSyntax.test(text);
}

/** A name made into a label: accents dropped, lower case, every run of other characters one `-`. */
export function slugifyLabel(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .slice(0, labelCharsMax)
    .replace(/[-._]+$/, "");
  return slug === "" ? fallbackLabel : slug;
}

/** The last segment of a canonical absolute path ("" for the root). */
export function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

/** The label a session would take unsuffixed: Pi's session name when set, else its cwd's name. */
export function derivedBase(sessionName: string | undefined, realCwd: string): string {
  const name = sessionName?.trim();
  return slugifyLabel(name !== undefined && name !== "" ? name : baseName(realCwd));
}

/** The refusal of `label`, naming its holder by what it holds and the shortest prefix of its id that
 * no other live session's id starts with (sessions started in one minute share their first 8). */
export function takenBy(label: string, holder: LabelHolder, live: readonly LabelHolder[]): LabelError {
  const prefix = uniquePrefixes([...new Set(live.map((h) => h.id))], idShownCharsMin).get(holder.id);
  return {
    kind: "label-taken",
    label,
    holder: holder.id,
    holderName: holder.label,
    ...(prefix === undefined ? {} : { holderPrefix: prefix }),
  };
}

/** The live session other than `selfId` holding `label`, if any. */
export function findHolder(label: string, selfId: string, live: readonly LabelHolder[]): LabelHolder | undefined {
  return live.find((holder) => holder.id !== selfId && sameLabel(holder.label, label));
}

/** `base`, or on a collision `base-<end of the session id>`: Pi's UUIDv7 ids share their first
 * characters for a minute, so the end tells sessions started together apart. Longer if still taken. */
export function uniqueLabel(base: string, selfId: string, live: readonly LabelHolder[]): string {
  if (findHolder(base, selfId, live) === undefined) return base;
  const hex = selfId.toLowerCase().replace(/[^0-9a-f]/g, "");
  const digits = hex.length >= labelSuffixHexMin ? hex : slugifyLabel(selfId);
  let candidate = base;
  for (let length = Math.min(labelSuffixHexMin, digits.length); length <= digits.length; length++) {
    const suffix = digits.slice(-length);
    const stem = base.slice(0, Math.max(1, labelCharsMax - suffix.length - 1)).replace(/[-._]+$/, "");
    candidate = `${stem === "" ? fallbackLabel.slice(0, 1) : stem}-${suffix}`.slice(0, labelCharsMax);
    if (findHolder(candidate, selfId, live) === undefined) return candidate;
  }
  // Every suffix taken means another id with the same digits: the longest is as unique as ids are.
  return candidate;
}

interface LabelRequest {
  /** Asked for by join: refused when malformed or held, never rewritten. */
  explicit?: string | undefined;
  /** The label this session holds now (a rejoin without a label keeps it). */
  current?: string | undefined;
  sessionName: string | undefined;
  realCwd: string;
  selfId: string;
}

/** The label a join settles on: an explicit one as asked or refused naming its holder;
 * else the one held now, or the derived one made unique. */
export function chooseLabel(request: LabelRequest, live: readonly LabelHolder[]): Result<string, LabelError> {
  if (request.explicit !== undefined) {
    if (!isLabel(request.explicit)) return err({ kind: "invalid-label", label: request.explicit });
    const holder = findHolder(request.explicit, request.selfId, live);
    if (holder !== undefined) return err(takenBy(request.explicit, holder, live));
    return ok(request.explicit);
  }
  if (request.current !== undefined) return ok(request.current);
  return ok(uniqueLabel(derivedBase(request.sessionName, request.realCwd), request.selfId, live));
}
