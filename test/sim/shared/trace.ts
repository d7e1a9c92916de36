// SIM_TRACE=<id prefix> prints what happens to one envelope while replaying a seed.
const wanted = process.env.SIM_TRACE;

export function trace(id: string, what: () => string): void {
  if (wanted !== undefined && wanted !== "" && id.startsWith(wanted))
    console.log(`[trace ${id.slice(0, 8)}] ${what()}`);
}

/** Under SIM_TRACE, each step as it happens, so the envelope's lines read in the schedule's order. */
export function traceStep(index: number, what: string): void {
  if (wanted !== undefined && wanted !== "") console.log(`[step ${index}] ${what}`);
}
