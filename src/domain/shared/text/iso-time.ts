// ISO 8601 from epoch milliseconds without `Date` (the domain reads time only through the Clock port).

/** Formats epoch milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ`. */
export function isoFromMs(ms: number): string {
  const t = Math.trunc(ms);
  const days = Math.floor(t / 86_400_000);
  const msOfDay = t - days * 86_400_000;
  // Civil-from-days (Howard Hinnant), valid far beyond any date a mailbox sees.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const pad = (n: number, w: number) => String(n).padStart(w, "0");
  const hh = Math.floor(msOfDay / 3_600_000);
  const mm = Math.floor((msOfDay % 3_600_000) / 60_000);
  const ss = Math.floor((msOfDay % 60_000) / 1000);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hh, 2)}:${pad(mm, 2)}:${pad(ss, 2)}.${pad(msOfDay % 1000, 3)}Z`;
}

const isoShape = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;

/** Epoch milliseconds of `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (what isoFromMs and Date#toISOString
 * write); undefined for any other text. */
export function msFromIso(text: string): number | undefined {
  const match = isoShape.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hh, mm, ss] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60) return undefined;
  const ms = Number((match[7] ?? "").padEnd(3, "0").slice(0, 3));
  // Days-from-civil (Howard Hinnant), the inverse of the formula above.
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  const days = era * 146_097 + doe - 719_468;
  return days * 86_400_000 + hh * 3_600_000 + mm * 60_000 + ss * 1000 + ms;
}
