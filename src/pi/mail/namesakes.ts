// Two running sessions with one name cannot be told apart by it: mail to that name is refused as
// ambiguous. The session that takes the name (at start or by /name) is told once.
import { uniquePrefixes } from "../../domain/mail/addressing.js";
import type { MailboxEngine } from "../../domain/mail/engine/index.js";
import { describeNamesakes } from "./texts.js";

export type NamesakeCheck = (engine: MailboxEngine, warn: (text: string) => void) => void;

/** A check for one session: it warns when this session's name is another running session's too,
 * once per name it takes. */
export function createNamesakeCheck(): NamesakeCheck {
  let warnedFor: string | undefined;
  return (engine, warn) => {
    const name = engine.identity()?.name;
    if (name === undefined || name === "" || name === warnedFor) return;
    const sessions = engine.list();
    const others = sessions.filter((s) => !s.self && s.name === name);
    if (others.length === 0) return;
    warnedFor = name;
    const prefixes = uniquePrefixes(sessions);
    warn(
      describeNamesakes(
        name,
        others.map((o) => prefixes.get(o.address) ?? o.address),
      ),
    );
  };
}
