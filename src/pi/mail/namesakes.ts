// A name another running session has too cannot tell the two apart: mail to it is refused as
// ambiguous. A name another running session's id starts with is found by name before that id, so
// mail typed to the prefix reaches the named session. The session that takes such a name (at start
// or by /name) is told once.
import { uniquePrefixes } from "../../domain/mail/addressing.js";
import type { MailboxEngine } from "../../domain/mail/engine/index.js";
import { idPrefixCharsMin } from "../../domain/mail/limits.js";
import { describeIdLookalike, describeNamesakes } from "./texts.js";

export type NamesakeCheck = (engine: MailboxEngine, warn: (text: string) => void) => void;

/** A check for one session: it warns when this session's name is another running session's too,
 * or how another running session's id begins, once per name it takes. */
export function createNamesakeCheck(): NamesakeCheck {
  let warnedFor: string | undefined;
  return (engine, warn) => {
    const name = engine.identity()?.name;
    if (name === undefined || name === "" || name === warnedFor) return;
    const sessions = engine.list();
    const others = sessions.filter((s) => !s.self);
    const namesakes = others.filter((o) => o.name === name);
    // An id equal to the name is taken as given before any name is read: the name captures nothing.
    const lookalikes =
      name.length < idPrefixCharsMin ? [] : others.filter((o) => o.address !== name && o.address.startsWith(name));
    if (namesakes.length === 0 && lookalikes.length === 0) return;
    warnedFor = name;
    const prefixes = uniquePrefixes(sessions);
    const prefixOf = (session: (typeof others)[number]) => prefixes.get(session.address) ?? session.address;
    if (namesakes.length > 0) warn(describeNamesakes(name, namesakes.map(prefixOf)));
    if (lookalikes.length > 0) warn(describeIdLookalike(name, lookalikes.map(prefixOf)));
  };
}
