/** Orders text by UTF-16 code units: the order of labels, ids and paths everywhere here. Unlike
 * `localeCompare` it never loads the ICU collator, whose first use costs about 7 ms of a short
 * program's run (the shell's `switchboard list`), and it gives one order on every machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
