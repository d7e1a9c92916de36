import { sanitizeField } from "../shared/text/sanitize.js";
import { utf8Bytes } from "../shared/text/utf8.js";
import {
  configFileBytesMax,
  hopLimitDefault,
  hopLimitMax,
  pruneAfterDaysDefault,
  pruneAfterDaysMax,
  shownLineCharsMax,
  unknownConfigKeysNamedMax,
} from "./limits.js";

export interface MailConfig {
  hopLimit: number;
  pruneAfterDays: number;
}

export const defaultConfig: MailConfig = { hopLimit: hopLimitDefault, pruneAfterDays: pruneAfterDaysDefault };

const defaultsWords = `${hopLimitDefault} hops, ${pruneAfterDaysDefault} days`;

/** What reading `session-mail.json` found: absent, its text, or why it could not be read. */
export type ConfigSource =
  | { kind: "missing" }
  | { kind: "text"; text: string }
  | { kind: "unreadable"; reason: string };

interface ConfigReading {
  config: MailConfig;
  /** Set when the file or a value was invalid: the defaults stand in, and the session warns once. */
  problem: string | undefined;
}

function positiveInteger(value: unknown, max: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= max;
}

const knownKeys: ReadonlySet<string> = new Set<keyof MailConfig>(["hopLimit", "pruneAfterDays"]);

/** Keys this version does not know: ignored, but named, since a typo (`hoplimit`) would otherwise
 * leave its default in force without a word. */
function unknownKeys(record: Record<string, unknown>): string | undefined {
  const unknown = Object.keys(record).filter((key) => !knownKeys.has(key));
  if (unknown.length === 0) return undefined;
  const named = unknown
    .slice(0, unknownConfigKeysNamedMax)
    .map((key) => JSON.stringify(sanitizeField(key, shownLineCharsMax)));
  const more = unknown.length > named.length ? ` and ${unknown.length - named.length} more` : "";
  const which = unknown.length === 1 ? `unknown key ${named[0]} is` : `unknown keys ${named.join(", ")}${more} are`;
  return `${which} ignored (the keys are hopLimit and pruneAfterDays)`;
}

/** Parses `session-mail.json`. A missing file or key means the default; anything invalid means
 * the default too, with a problem to warn about. Unknown keys are ignored, with a problem naming them. */
export function readConfig(source: ConfigSource, path: string): ConfigReading {
  if (source.kind === "missing") return { config: defaultConfig, problem: undefined };
  if (source.kind === "unreadable")
    return { config: defaultConfig, problem: `${path} is unreadable (${source.reason}); using the defaults.` };
  if (utf8Bytes(source.text) > configFileBytesMax)
    return { config: defaultConfig, problem: `${path} is too large; using the defaults.` };
  let raw: unknown;
  try {
    raw = JSON.parse(source.text);
  } catch {
    return { config: defaultConfig, problem: `${path} is not valid JSON; using the defaults (${defaultsWords}).` };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return {
      config: defaultConfig,
      problem: `${path} must hold a JSON object; using the defaults (${defaultsWords}).`,
    };
  }
  const record = raw as Record<string, unknown>;
  const problems: string[] = [];
  const pick = (key: keyof MailConfig, max: number): number => {
    const value = record[key];
    if (value === undefined) return defaultConfig[key];
    if (positiveInteger(value, max)) return value;
    problems.push(`${key} must be a positive integer (at most ${max}); using ${defaultConfig[key]}`);
    return defaultConfig[key];
  };
  const config = { hopLimit: pick("hopLimit", hopLimitMax), pruneAfterDays: pick("pruneAfterDays", pruneAfterDaysMax) };
  const unknown = unknownKeys(record);
  if (unknown !== undefined) problems.push(unknown);
  return { config, problem: problems.length > 0 ? `${path}: ${problems.join("; ")}.` : undefined };
}
