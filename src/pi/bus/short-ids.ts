// Session ids as the bus's lines show them: the shortest prefix (at least 8 characters) that no other
// session id this extension knows starts with, where a full UUID would fill a line. A status read
// lists every session on the bus and replaces what is known; the ids of each output are added to it,
// so two sessions one text names are always told apart.
import { idShownCharsMin, idsKnownMax } from "../../domain/bus/limits.js";
import { uniquePrefixes } from "../../domain/shared/unique-prefix.js";

export interface ShortIds {
  /** This session's own id: every prefix is kept apart from it, whatever a listing says. */
  own(id: string): void;
  /** Every session id a full listing of the bus named (a status read). */
  listed(ids: readonly string[]): void;
  /** The shortener for one output that names `ids`: each id's prefix, kept apart from every other
   * known id and from the others of `ids`. */
  among(ids: readonly string[]): (id: string) => string;
}

export function createShortIds(): ShortIds {
  let known = new Set<string>();
  let self: string | undefined;
  return {
    own(id) {
      self = id;
    },
    listed(ids) {
      known = new Set(ids.slice(0, idsKnownMax));
    },
    among(ids) {
      for (const id of self === undefined ? ids : [self, ...ids]) {
        // Past the bound the oldest knowledge goes first (a Set keeps insertion order).
        if (known.size >= idsKnownMax) known.delete(known.values().next().value ?? "");
        known.add(id);
      }
      const prefixes = uniquePrefixes([...known], idShownCharsMin);
      return (id) => prefixes.get(id) ?? id;
    },
  };
}
