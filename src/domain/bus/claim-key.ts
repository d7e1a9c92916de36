// The name of a claim file, `<encoded key>~<owner id>~<join token>`: a listing of claims/ alone
// says who holds what, so checking a path against every claim reads no claim file. The key is
// percent-encoded byte by byte outside [A-Za-z0-9._-] (`/` is `%2F`, `~` is `%7E`, a leading `.`
// is `%2E` so no claim is a dot-file), which makes the name one safe segment and `~` a separator.
// An existing file's claim has a second name, `#<device>-<inode>#<encoded key>~<owner>~<join token>`:
// the same listing then says who holds a file under any of its names (hard links), and the key in
// it lets a release by key find it. No key's name starts with a raw `#` (it is `%23`), so the two
// never meet, and a build that knows no identity names skips them (they do not decode for it).
// A claim taken on an edit (observed, it lapses) has a third name, `!<path claim's name>`: the mark.
// The three are links of one file, so the mark's mtime is the claim's: the last edit it saw.
import { err, ok, type Result } from "neverthrow";
import type { Shape } from "../shared/shape.js";
import { encodeUtf8 } from "../shared/text/utf8.js";
import type { ClaimName } from "./bus-files.js";
import { busIdCharsMax, claimNameBytesMax } from "./limits.js";

/** Session ids, join tokens and message ids: each becomes (part of) a file name. */
const busIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** An id safe as a file name and in a claim name: starts alphanumeric, then [A-Za-z0-9._-]. */
export function isBusId(value: string): boolean {
  return value.length <= busIdCharsMax && busIdPattern.test(value);
}

/** isBusId as a shape check, for the codecs of files that carry ids. */
export const busId: Shape = (value, path) =>
  typeof value === "string" && isBusId(value) ? undefined : `${path} must be an id of [A-Za-z0-9._-]`;

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A repository-relative posix path: not empty, not `.`, no leading or trailing `/`, no empty, `.`
 * or `..` segment, no NUL, no lone surrogate. What a claim resolves to before it is stored. */
export function isClaimKey(key: string): boolean {
  // A lone surrogate has no UTF-8 form: its name would decode to another key.
  if (key === "" || key.includes("\0") || loneSurrogate.test(key)) return false;
  return key.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

export type ClaimNameError =
  | { kind: "bad-key"; key: string }
  | { kind: "bad-id"; field: "owner" | "joinToken"; value: string }
  /** The name would pass NAME_MAX: the key is too long (or too far from ASCII) to claim. */
  | { kind: "key-too-long"; key: string; nameBytes: number; nameBytesMax: number };

const safeByte = (byte: number): boolean =>
  (byte >= 0x30 && byte <= 0x39) ||
  (byte >= 0x41 && byte <= 0x5a) ||
  (byte >= 0x61 && byte <= 0x7a) ||
  byte === 0x2e ||
  byte === 0x5f ||
  byte === 0x2d;

function encodeKey(key: string): string {
  let out = "";
  const bytes = encodeUtf8(key);
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    // A leading dot would make the claim a dot-file, which every reader skips.
    if (safeByte(byte) && !(i === 0 && byte === 0x2e)) out += String.fromCharCode(byte);
    else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** `<device>-<inode>`, decimal, no leading zeros: one spelling per file. */
const identityPattern = /^(?:0|[1-9][0-9]{0,19})-(?:0|[1-9][0-9]{0,19})$/;

function isFileIdentity(value: string): boolean {
  return identityPattern.test(value);
}

/** The claim file's name, or why there is none. */
export function encodeClaimName(claim: ClaimName): Result<string, ClaimNameError> {
  if (!isClaimKey(claim.key)) return err({ kind: "bad-key", key: claim.key });
  if (claim.identity !== undefined && !isFileIdentity(claim.identity)) {
    return err({ kind: "bad-key", key: `#${claim.identity}` });
  }
  if (!isBusId(claim.owner)) return err({ kind: "bad-id", field: "owner", value: claim.owner });
  if (!isBusId(claim.joinToken)) return err({ kind: "bad-id", field: "joinToken", value: claim.joinToken });
  const identity = claim.identity === undefined ? "" : `#${claim.identity}#`;
  const name = `${identity}${encodeKey(claim.key)}~${claim.owner}~${claim.joinToken}`;
  // Every character of the name is ASCII, so its length is its size in bytes.
  if (name.length > claimNameBytesMax) {
    return err({ kind: "key-too-long", key: claim.key, nameBytes: name.length, nameBytesMax: claimNameBytesMax });
  }
  return ok(name);
}

/** An encoded key of safe bytes and `/` only, not starting with a dot (which would be `%2E`). */
const plainEncoded = /^(?:[A-Za-z0-9_-]|%2F)(?:[A-Za-z0-9._-]|%2F)*$/;

const utf8Strict = new TextDecoder("utf-8", { fatal: true });

function decodeKey(encoded: string): string | undefined {
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    const c = encoded.charCodeAt(i);
    if (c !== 0x25) {
      bytes.push(c);
      continue;
    }
    const hex = encoded.slice(i + 1, i + 3);
    if (!/^[0-9A-F]{2}$/.test(hex)) return undefined;
    bytes.push(Number.parseInt(hex, 16));
    i += 2;
  }
  try {
    return utf8Strict.decode(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
}

/** The claim a file name stands for, or undefined when it is not a claim's name. Only the one
 * canonical spelling decodes (re-encoding must give the name back), so one claim has one name and
 * removing a decoded claim removes that very file. */
export function decodeClaimName(name: string): ClaimName | undefined {
  if (name.length > claimNameBytesMax) return undefined;
  if (name.startsWith("#")) return decodeIdentityName(name);
  const parts = name.split("~");
  if (parts.length !== 3) return undefined;
  const [encoded, owner, joinToken] = parts as [string, string, string];
  // Most keys are plain ASCII paths: only safe bytes and `%2F`, not starting with a dot. Their one
  // canonical spelling is checked without decoding bytes and encoding them again (a claim lists
  // claims/ twice, and this ran for every name of both listings).
  if (plainEncoded.test(encoded)) {
    const plain = encoded.replace(/%2F/g, "/");
    const fits = isClaimKey(plain) && isBusId(owner) && isBusId(joinToken);
    return fits ? { key: plain, owner, joinToken } : undefined;
  }
  const key = decodeKey(encoded);
  if (key === undefined) return undefined;
  const claim = { key, owner, joinToken };
  const again = encodeClaimName(claim);
  return again.isOk() && again.value === name ? claim : undefined;
}

/** The name of an observed claim's mark: `!` and its path claim's name. */
export function encodeMarkName(claim: ClaimName): Result<string, ClaimNameError> {
  return encodeClaimName({ key: claim.key, owner: claim.owner, joinToken: claim.joinToken }).andThen(
    (name): Result<string, ClaimNameError> =>
      name.length + 1 > claimNameBytesMax
        ? err({ kind: "key-too-long", key: claim.key, nameBytes: name.length + 1, nameBytesMax: claimNameBytesMax })
        : ok(`!${name}`),
  );
}

/** The path claim a mark's name marks as observed, or undefined when it is not a mark's name. */
export function decodeMarkName(name: string): ClaimName | undefined {
  if (!name.startsWith("!")) return undefined;
  const claim = decodeClaimName(name.slice(1));
  return claim === undefined || claim.identity !== undefined ? undefined : claim;
}

/** `#<identity>#<path claim's name>`: the path claim's name decoded, the identity added. */
function decodeIdentityName(name: string): ClaimName | undefined {
  const end = name.indexOf("#", 1);
  const identity = name.slice(1, end);
  if (end < 0 || !isFileIdentity(identity)) return undefined;
  const claim = decodeClaimName(name.slice(end + 1));
  return claim === undefined || claim.identity !== undefined ? undefined : { ...claim, identity };
}

/** What the claim files of one create hold (they are links of one file). The names say who holds
 * what; the content is for a person reading claims/, except `instance`, first, which tells this
 * create's claims from a later create of the same keys by the same session (a handoff offers the
 * claims held when it was sent, not ones made after a release). */
export function encodeClaimFile(
  instance: string,
  owner: string,
  joinToken: string,
  label: string,
  keys: readonly string[],
): string {
  return `${JSON.stringify({ instance, owner, joinToken, label, keys })}\n`;
}

/** How many bytes of a claim file hold its instance: `{"instance":"<uuid>"`. */
export const claimInstanceBytes = 50;

/** The instance at the head of a claim file, or undefined for a file of another form. */
export function claimInstanceOf(head: string): string | undefined {
  const prefix = '{"instance":"';
  if (!head.startsWith(prefix)) return undefined;
  const end = head.indexOf('"', prefix.length);
  const instance = end < 0 ? "" : head.slice(prefix.length, end);
  return isBusId(instance) ? instance : undefined;
}
