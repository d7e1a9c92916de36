import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  baseName,
  chooseLabel,
  derivedBase,
  fallbackLabel,
  findHolder,
  isLabel,
  slugifyLabel,
  takenBy,
  uniqueLabel,
} from "../../../src/domain/bus/labels.js";
import { labelCharsMax } from "../../../src/domain/bus/limits.js";

// Pi's UUIDv7 ids share their first characters for a minute.
const me = "01a232e9-7f64-7000-8000-00000000beef";
const other = "01a232e9-809c-7000-8000-00000000cafe";

describe("label syntax", () => {
  it("accepts lower-case letters, digits, dot, underscore and dash, starting with a letter or digit", () => {
    for (const label of ["billing-core", "a", "0", "v2.1_x-y", "x".repeat(labelCharsMax)]) {
      expect(isLabel(label)).toBe(true);
    }
  });

  it("refuses upper case, a leading punctuation mark, spaces, *, empty and over-long labels", () => {
    for (const label of ["Billing", "-a", ".a", "_a", "a b", "*", "", "x".repeat(labelCharsMax + 1), "é"]) {
      expect(isLabel(label)).toBe(false);
    }
  });
});

describe("slugifyLabel", () => {
  it("lower-cases, drops accents and turns every run of other characters into one dash", () => {
    expect(slugifyLabel("Billing Core  API")).toBe("billing-core-api");
    expect(slugifyLabel("Crème brûlée!")).toBe("creme-brulee");
    expect(slugifyLabel("--Hidden__")).toBe("hidden");
  });

  it("falls back to a fixed label when nothing usable is left", () => {
    expect(slugifyLabel("")).toBe(fallbackLabel);
    expect(slugifyLabel("漢字")).toBe(fallbackLabel);
    expect(slugifyLabel("---")).toBe(fallbackLabel);
  });

  it("always yields a valid label", () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (name) => isLabel(slugifyLabel(name))));
  });
});

describe("derivation", () => {
  it("takes Pi's session name when it is set", () => {
    expect(derivedBase("Billing Core", "/work/repo")).toBe("billing-core");
  });

  it("takes the basename of the real cwd when the session has no name or a blank one", () => {
    expect(derivedBase(undefined, "/work/My Repo")).toBe("my-repo");
    expect(derivedBase("  ", "/work/repo/")).toBe("repo");
  });

  it("names the root folder with the fallback", () => {
    expect(baseName("/")).toBe("");
    expect(derivedBase(undefined, "/")).toBe(fallbackLabel);
  });
});

describe("uniqueness among live sessions", () => {
  it("finds a holder case-insensitively, never this session itself", () => {
    const live = [{ id: other, label: "Billing" }];
    expect(findHolder("billing", me, live)?.id).toBe(other);
    expect(findHolder("billing", other, live)).toBeUndefined();
  });

  it("keeps a free base as it is", () => {
    expect(uniqueLabel("repo", me, [{ id: other, label: "api" }])).toBe("repo");
  });

  it("suffixes a taken base with the END of the session id, not its shared start", () => {
    expect(uniqueLabel("repo", me, [{ id: other, label: "repo" }])).toBe("repo-beef");
  });

  it("grows the suffix while the shorter one is taken too", () => {
    const live = [
      { id: other, label: "repo" },
      { id: "x", label: "repo-beef" },
    ];
    expect(uniqueLabel("repo", me, live)).toBe("repo-0beef");
  });

  it("keeps a suffixed label within the length limit", () => {
    const base = "b".repeat(labelCharsMax);
    const label = uniqueLabel(base, me, [{ id: other, label: base }]);
    expect(label.length).toBeLessThanOrEqual(labelCharsMax);
    expect(label.endsWith("-beef")).toBe(true);
    expect(isLabel(label)).toBe(true);
  });

  it("always settles on a valid label no live session holds", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 20 }), { maxLength: 6 }),
        fc.string({ maxLength: 30 }),
        (taken, name) => {
          const live = taken.map((t, i) => ({ id: `peer-${i}`, label: slugifyLabel(t) }));
          const base = slugifyLabel(name);
          live.push({ id: other, label: base });
          const label = uniqueLabel(base, me, live);
          return isLabel(label) && findHolder(label, me, live) === undefined;
        },
      ),
    );
  });
});

describe("chooseLabel", () => {
  const request = { sessionName: undefined, realCwd: "/work/repo", selfId: me };

  it("refuses an explicit label held by a live session, naming the holder's id", () => {
    const result = chooseLabel({ ...request, explicit: "repo" }, [{ id: other, label: "REPO" }]);
    expect(result._unsafeUnwrapErr()).toEqual({
      kind: "label-taken",
      label: "repo",
      holder: other,
      holderName: "REPO",
      holderPrefix: other.slice(0, 8),
    });
  });

  it("refuses a malformed explicit label instead of rewriting it", () => {
    expect(chooseLabel({ ...request, explicit: "Billing Core" }, [])._unsafeUnwrapErr()).toEqual({
      kind: "invalid-label",
      label: "Billing Core",
    });
  });

  it("accepts an explicit label this session already holds", () => {
    expect(chooseLabel({ ...request, explicit: "repo" }, [{ id: me, label: "repo" }])._unsafeUnwrap()).toBe("repo");
  });

  it("keeps the current label on a rejoin without one", () => {
    expect(chooseLabel({ ...request, current: "mine" }, [{ id: other, label: "repo" }])._unsafeUnwrap()).toBe("mine");
  });

  it("derives and suffixes when nothing is asked and nothing is held", () => {
    expect(chooseLabel(request, [{ id: other, label: "repo" }])._unsafeUnwrap()).toBe("repo-beef");
  });
});

describe("takenBy", () => {
  it("names the holder by the shortest start of its id no other live session's id shares", () => {
    const twins = [
      { id: "0190a1a1-7f64-7000-8000-00000000a11c", label: "alice" },
      { id: "0190a1a1-809c-7000-8000-000000000b0b", label: "bob" },
    ];
    expect(takenBy("bob", twins[1]!, twins)).toEqual({
      kind: "label-taken",
      label: "bob",
      holder: twins[1]!.id,
      holderName: "bob",
      holderPrefix: "0190a1a1-8",
    });
  });
});
