/** Bus labels compare without regard to case: the bus keeps them unique so, and mail, which reaches
 * a session by its label too, compares them the same way. */
export function sameLabel(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Both names of a session where they differ: `Code Reviewer 🚀 (bus: code-reviewer)`; where they do
 * not, `alike` alone (the mailbox shows the name, the bus its label). `clean` makes each part safe. */
function bothNames(name: string, label: string, alike: string, clean: (text: string) => string): string {
  return sameLabel(name, label) ? clean(alike) : `${clean(name)} (bus: ${clean(label)})`;
}

/** A session as the mailbox lists it: its name, and its bus label beside it when it has one. */
export function nameWithLabel(name: string, label: string | undefined, clean: (text: string) => string): string {
  return label === undefined || label === "" ? clean(name) : bothNames(name, label, name, clean);
}

/** A session as the bus lists it: its label, with Pi's name before it when it has one. */
export function labelWithName(label: string, name: string | undefined, clean: (text: string) => string): string {
  return name === undefined ? clean(label) : bothNames(name, label, label, clean);
}
