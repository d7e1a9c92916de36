import { addressCharsMax } from "./limits.js";

/** A session id used as a mailbox address. Validated before it ever becomes a path segment. */
export type Address = string & { readonly __brand: "Address" };

const addressShape = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An address is safe as one path segment: no `/`, no `..`, no leading dot, bounded. */
export function isAddress(value: string): value is Address {
  return value.length > 0 && value.length <= addressCharsMax && addressShape.test(value) && !value.includes("..");
}

export function isUuid(value: string): boolean {
  return uuidShape.test(value);
}

/** The first 8 characters of an id: what stands in for a missing session name. */
export function shortId(address: string): string {
  return address.slice(0, 8);
}
