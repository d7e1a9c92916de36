// PI_DISABLED_EXTENSIONS is not Pi's: a convention of this package family. Names separated by commas
// or white space, compared case-insensitively, unknown names ignored; a disabled extension's factory
// registers nothing (Pi still loads the file). Pi's own way is a settings filter ("!…/session-bus.js").

export function isDisabled(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const listed = env.PI_DISABLED_EXTENSIONS ?? "";
  return listed.split(/[\s,]+/).some((entry) => entry !== "" && entry.toLowerCase() === name.toLowerCase());
}
